// Issue 27 (Cloud Foundation Fabric conventions): every Terraform module's README carries its
// variables and outputs tables, generated from its .tf files by scripts/terraform-module-docs.cjs.
// CI fails here when a .tf change was not followed by `npm run docs:terraform`. The generator itself
// runs on copies: it must notice a change, rewrite only its block and document new modules.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const GENERATOR = path.join(ROOT, 'scripts/terraform-module-docs.cjs');
const MODULES = path.join(ROOT, 'terraform/modules');
const PRETTIER = path.join(ROOT, 'node_modules/prettier/bin/prettier.cjs');

/** Runs a Node script from the repository root, as `npm run` would. */
function runNode(script: string, args: readonly string[]) {
  const { status, stdout, stderr } = spawnSync(process.execPath, [script, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { status, stdout, stderr };
}

const generate = (...args: string[]) => runNode(GENERATOR, args);
const shown = (file: string) => path.relative(ROOT, file);

const workDirs: string[] = [];
function workDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'module-docs-'));
  workDirs.push(dir);
  return dir;
}
afterAll(() => workDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

describe('terraform module READMEs', () => {
  it('are up to date with the modules (otherwise: npm run docs:terraform)', () => {
    const result = generate('--check');
    // stderr names every missing or stale README and the command that fixes them.
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('pass prettier on their own (the repository ignores *.md, so ask for them by name)', () => {
    const readmes = fs
      .readdirSync(MODULES, { recursive: true, encoding: 'utf8' })
      .filter((file) => path.basename(file) === 'README.md' && !file.includes('.terraform'))
      .map((file) => path.join(MODULES, file));
    expect(readmes.length).toBeGreaterThan(0);
    const result = runNode(PRETTIER, ['--check', '--ignore-path', os.devNull, ...readmes]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});

describe('scripts/terraform-module-docs.cjs', () => {
  it('reports an added variable as stale with the fix, then adds its row and keeps the hand-written text', () => {
    const modules = path.join(workDir(), 'modules');
    const module = path.join(modules, 'pullsecret-cluster-rbac');
    fs.cpSync(path.join(MODULES, 'pullsecret-cluster-rbac'), module, { recursive: true });
    const readme = path.join(module, 'README.md');
    // Hand-written text after the block too; editing it does not make the README stale.
    fs.appendFileSync(readme, '\n## Notes\n\nWritten by hand, after the block.\n');
    expect(generate('--check', modules).status).toBe(0);

    fs.appendFileSync(
      path.join(module, 'variables.tf'),
      '\nvariable "extra_labels" {\n' +
        '  description = "Labels | added to every object."\n' +
        '  type        = map(string)\n' +
        '  default     = {}\n' +
        '}\n',
    );
    const stale = generate('--check', modules);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain(`${shown(readme)} (stale)`);
    expect(stale.stderr).toContain(`Fix: node scripts/terraform-module-docs.cjs ${shown(modules)}`);

    const before = fs.readFileSync(readme, 'utf8');
    expect(generate(modules).status).toBe(0);
    const after = fs.readFileSync(readme, 'utf8');
    expect(after).toMatch(
      /^\| \[extra_labels\]\(variables\.tf\) +\| Labels \\\| added to every object\. +\| `map\(string\)` +\| +\| `\{\}` +\|$/m,
    );
    const handWritten = (text: string) => [
      text.slice(0, text.indexOf('<!-- BEGIN_TF_DOCS -->')),
      text.slice(text.indexOf('<!-- END_TF_DOCS -->')),
    ];
    expect(handWritten(after)).toEqual(handWritten(before));
    expect(generate('--check', modules).status).toBe(0);
  });

  it('finds a new module, nested too, and writes its README: title, placeholder, tables', () => {
    const modules = path.join(workDir(), 'modules');
    const outer = path.join(modules, 'fresh');
    const inner = path.join(outer, 'modules', 'inner');
    fs.mkdirSync(inner, { recursive: true });
    fs.writeFileSync(path.join(outer, 'outputs.tf'), 'output "id" {\n  value = "x"\n}\n');
    fs.writeFileSync(
      path.join(inner, 'main.tf'),
      'variable "name" {\n  description = "The name."\n  type        = string\n}\n\n' +
        'output "token" {\n  description = "A token."\n  value       = var.name\n  sensitive   = true\n}\n',
    );

    const missing = generate('--check', modules);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(`${shown(path.join(outer, 'README.md'))} (missing)`);
    expect(missing.stderr).toContain(`${shown(path.join(inner, 'README.md'))} (missing)`);

    expect(generate(modules).status).toBe(0);
    const outerReadme = fs.readFileSync(path.join(outer, 'README.md'), 'utf8');
    expect(outerReadme).toMatch(/^# fresh\n\nTODO: .+\n\n<!-- BEGIN_TF_DOCS -->\n/);
    expect(outerReadme).toContain('This module has no variables.');
    const innerReadme = fs.readFileSync(path.join(inner, 'README.md'), 'utf8');
    expect(innerReadme).toMatch(/^\| \[name\]\(main\.tf\) +\| The name\. +\| `string` +\| ✓ +\| +\|$/m);
    expect(innerReadme).toMatch(/^\| \[token\]\(main\.tf\) +\| A token\. +\| ✓ +\|$/m);
    expect(innerReadme.trimEnd().endsWith('<!-- END_TF_DOCS -->')).toBe(true);
  });
});
