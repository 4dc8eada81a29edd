import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, runNode } from '../../helpers/run-process';

const MAIN = path.join(ROOT, 'dist/emulators/pullsecret/stack/main.js');
const EMULATORS = path.join(ROOT, 'dist/emulators/pullsecret/cli.js');
const START = path.join(ROOT, 'scripts/start.cjs');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'cli-input-'));

// Each case must fail before anything starts: a work dir that would hold stack.json stays empty.
describe('bad command-line input is rejected with the usage, exit 2, before anything starts', () => {
  it.each([
    [['--timeout', 'banana'], /--timeout "banana" is not a duration: use a number with a unit/],
    [['--timeout', '0s'], /--timeout "0s" is not a duration/],
    [['--bogus'], /unknown option --bogus/],
    [['--timeout'], /--timeout needs a value/],
    [['stray'], /unexpected argument stray/],
  ])('npm start %j', async (args, message) => {
    const workDir = tmp();
    const run = await runNode(MAIN, ['--work-dir', workDir, ...args], {}, 15_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('Usage: npm start --');
    expect(fs.readdirSync(workDir)).toEqual([]);
  });

  it('npm start --help exits 0 and documents the duration format', async () => {
    const run = await runNode(MAIN, ['--help'], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('a bare number means seconds');
  });

  it.each([
    [['sentinel', '--bogus'], /unknown option --bogus/],
    [['sentinel', '--poll-interval', 'banana'], /--poll-interval "banana" is not a duration/],
    [['nonsense'], /Unknown emulator "nonsense"/],
  ])('npm run emulators -- %j', async (args, message) => {
    const run = await runNode(EMULATORS, args, {}, 15_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('Usage: npm run emulators --');
  });

  it('npm run emulators -- --help exits 0 with the usage on stdout', async () => {
    const run = await runNode(EMULATORS, ['--help'], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('a bare number means seconds');
  });
});

describe('a second npm start', () => {
  /**
   * A PATH whose first `npm` records its arguments and fails: start.cjs installs and builds
   * through npm, so what it records is what the run would have installed or built.
   */
  const recordingNpm = () => {
    const dir = tmp();
    const calls = path.join(dir, 'npm-calls.txt');
    fs.writeFileSync(path.join(dir, 'npm'), `#!/bin/sh\necho "npm $*" >> '${calls}'\nexit 1\n`, {
      mode: 0o755,
    });
    return {
      PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}`,
      calls: () => (fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8') : ''),
    };
  };

  it('says a stack is already running before installing or building', async () => {
    const workDir = tmp();
    // This test process stands for the running stack: its pid is alive.
    fs.writeFileSync(path.join(workDir, 'stack.json'), JSON.stringify({ pid: process.pid }));
    const npm = recordingNpm();
    const built = fs.statSync(MAIN).mtimeMs;
    // How quickly it says so is measured by `npm run bench` (BENCH_SECTIONS=timing).
    const run = await runNode(START, ['--work-dir', workDir], { PATH: npm.PATH }, 30_000);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`a local stack is already running (pid ${process.pid})`);
    expect(npm.calls()).toBe('');
    expect(fs.statSync(MAIN).mtimeMs).toBe(built);
  });

  it('the control: without a running stack, npm start goes on to build (through npm)', async () => {
    const npm = recordingNpm();
    const run = await runNode(START, ['--work-dir', tmp()], { PATH: npm.PATH }, 30_000);
    expect(run.code).toBe(1);
    // `npm ci` first where node_modules was never installed, else the build.
    expect(npm.calls()).toMatch(/^npm (ci|run --silent build)\b/);
  });

  it('ignores a stale stack.json whose process is gone (and --help still works)', async () => {
    const workDir = tmp();
    fs.writeFileSync(path.join(workDir, 'stack.json'), JSON.stringify({ pid: 2 ** 22 + 12345 }));
    const run = await runNode(MAIN, ['--work-dir', workDir, '--help'], {});
    expect(run.code).toBe(0);
  });
});

describe('npm run wait', () => {
  const WAIT = path.join(ROOT, 'dist/emulators/pullsecret/stack/wait.js');

  it.each([
    [['--timeout', 'banana', 'c1'], /--timeout "banana" is not a duration/],
    [[], /give exactly one CLUSTER_ID/],
    [['c1', '--status', 'maybe'], /--status "maybe" must be True, False or Unknown/],
    [['c1', '--bogus'], /unknown option --bogus/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const run = await runNode(WAIT, args, {});
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('Usage: npm run -s wait --');
  });

  it('without a running stack: exit 3 and says so', async () => {
    const stack = path.join(tmp(), 'stack.json');
    const run = await runNode(WAIT, ['c1', '--stack', stack], {});
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`no running local stack (${stack} is missing)`);
  });
});
