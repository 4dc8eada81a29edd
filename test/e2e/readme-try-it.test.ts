import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readDoc } from '../helpers/docs';
import { ROOT } from '../helpers/run-process';
import { startTestStack, type TestStack } from '../helpers/stack';

const PAGE = 'docs/local-stack.md';

/** The local stack page's "Try it" block, exactly as written (the test fails when the page changes it wrongly). */
function tryItBlock(): string {
  const page = readDoc(PAGE);
  const start = page.indexOf('Try it from a second terminal');
  expect(start).toBeGreaterThan(0);
  const block = /```bash\n([\s\S]*?)```/.exec(page.slice(start))?.[1];
  if (!block) throw new Error(`no bash block after "Try it from a second terminal" in ${PAGE}`);
  return block;
}

/** Runs a bash script as a user pasting it would, with errexit so the first failing command fails the test. */
function bash(script: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
}, 120_000);
afterAll(() => stack?.stop());

describe('docs/local-stack.md "Try it"', () => {
  it('runs as one pasted block: create, wait, look, change the pull secret, relabel, delete', async () => {
    // A "second terminal" in a directory of the repository whose .local/stack.json is the test
    // stack's: npm finds the repository's package.json above it, `wait` reads INIT_CWD's stack.
    const terminal = path.join(ROOT, '.test-work', `readme-${process.pid}`);
    fs.mkdirSync(path.join(terminal, '.local'), { recursive: true });
    fs.writeFileSync(path.join(terminal, '.local', 'stack.json'), JSON.stringify(stack.d));
    try {
      const run = await bash(tryItBlock(), terminal);
      expect({ code: run.code, output: run.output }).toEqual({ code: 0, output: run.output });
      const waits = run.output.match(/^\S+: PullsecretSuccessful=True at generation (\d) of \1/gm);
      expect(waits?.map((w) => w.split(' ').at(-1))).toEqual(['1', '2', '3']);
      expect(run.output).toMatch(
        /^\S+-pull-secret\s+kubernetes\.io\/dockerconfigjson\s+hyperfleet$/m,
      );
      // The pull secret change wrote version 2; the label change (generation 3) wrote nothing.
      // A success is reported twice, by the job's result (the version by number) and from Cloud
      // Run's execution-finished entry (the readers' alias, `current`); the wait prints whichever
      // the API holds first, so either form is this generation's, and no third version exists.
      expect(run.output).toMatch(/generation 2 of 2 .*\/versions\/(2|current) /);
      expect(run.output).toMatch(/generation 3 of 3 .*\/versions\/(2|current) /);
      expect(run.output).not.toMatch(/\/versions\/3 /);
      expect(run.output).toMatch(/: deleted \(after [\d.]+ s\)$/m);
      // Nothing of the cluster is left.
      expect(await stack.api.listAllClusters()).toEqual([]);
    } finally {
      fs.rmSync(terminal, { recursive: true, force: true });
    }
  }, 180_000);
});
