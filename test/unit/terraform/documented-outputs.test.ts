import fs from 'node:fs';
import path from 'node:path';

// The docs tell an operator to run `terraform output NAME` after the first apply, from the example
// root (docs/deployment.md, "First apply on an empty project"). An output the example does not
// declare fails there ("Output NAME not found"), and the cluster side of the first apply cannot be
// done: issue 39 found `management_cluster_fence` missing from the example.
const ROOT = path.join(__dirname, '../../..');
const EXAMPLE_OUTPUTS = path.join(ROOT, 'terraform/examples/basic/outputs.tf');

function markdownFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md') && !file.includes('node_modules'))
    .map((file) => path.join(dir, file));
}

const documentedOutputs = (): Map<string, string[]> => {
  const found = new Map<string, string[]>();
  const files = [
    path.join(ROOT, 'README.md'),
    ...markdownFiles(path.join(ROOT, 'docs')),
    ...markdownFiles(path.join(ROOT, 'terraform')),
  ];
  for (const file of files)
    for (const match of fs
      .readFileSync(file, 'utf8')
      .matchAll(/terraform output (?:-raw |-json )?([a-z_][a-z0-9_]*)/g))
      found.set(match[1]!, [...(found.get(match[1]!) ?? []), path.relative(ROOT, file)]);
  return found;
};

describe('the outputs the docs tell an operator to read', () => {
  const declared = new Set(
    [...fs.readFileSync(EXAMPLE_OUTPUTS, 'utf8').matchAll(/^output "([a-z0-9_]+)"/gm)].map(
      (m) => m[1]!,
    ),
  );

  it('finds the commands in the docs', () => {
    expect([...documentedOutputs().keys()]).toEqual(
      expect.arrayContaining(['management_cluster_fence', 'management_cluster_rbac']),
    );
  });

  it('are each declared by the example root they are run from', () => {
    const missing = [...documentedOutputs()]
      .filter(([name]) => !declared.has(name))
      .map(([name, files]) => `${name} (in ${files.join(', ')})`);
    expect(missing).toEqual([]);
  });
});
