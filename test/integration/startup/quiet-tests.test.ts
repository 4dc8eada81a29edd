import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { ROOT } from '../../helpers/run-process';
import { TEST_CONSOLE_LOG } from '../../jest.setup';

// A test file whose functions fail on purpose (functions-framework logs each crash with its stack).
const FAULTY = 'test/integration/emulators/eventarc-delivery.test.ts';

function jest(file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['node_modules/jest/bin/jest.js', file], {
      cwd: ROOT,
      env: { ...process.env, CI: 'true', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('a passing test run is quiet', () => {
  it('prints no stack traces or console output from injected faults; they go to the test log', async () => {
    const before = fs.existsSync(TEST_CONSOLE_LOG) ? fs.statSync(TEST_CONSOLE_LOG).size : 0;
    const run = await jest(FAULTY);
    expect(run.code).toBe(0);
    expect(run.output).toMatch(/^PASS /m);
    expect(run.output).not.toMatch(/^\s+at /m);
    expect(run.output).not.toMatch(/console\.(error|log|warn)/);
    const logged = fs.readFileSync(TEST_CONSOLE_LOG, 'utf8').slice(before);
    expect(logged).toContain('failing on purpose');
  }, 120_000);
});
