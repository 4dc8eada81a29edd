// .ci/lib/cleanup.sh, the part of .ci/run that stops what the run started, in a fake run: a copy
// of the library in a temporary checkout and a run script shaped like .ci/run (cd to the checkout,
// source, init, steps in their own groups), started the three ways .ci/run is. The run's steps
// leave processes behind (a child, a grandchild, one that ignores SIGTERM); an unrelated process
// whose command line holds the checkout's path (an editor, say) runs beside it. The old cleanup
// killed every process matching the path, the run's own shell included when it was started by an
// absolute path (a passing run exited 143).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOnPath } from '../../helpers/required-tools';
import { ROOT } from '../../helpers/run-process';
import { waitFor } from '../../helpers/wait-for';

const RUN_SCRIPT = `#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
source "$ROOT/.ci/lib/cleanup.sh"
ci_cleanup_init
# A step that ends at once, leaving a child, a child with a child, and a process that ignores
# SIGTERM (as a JVM taking its time would); each writes its pid to $PIDS.
ci_in_own_group "leaky step" bash -c '
  sleep 300 & echo $! >>"$PIDS"
  bash -c "sleep 300 & echo \\$! >>\\"\\$PIDS\\"; wait" & echo $! >>"$PIDS"
  bash -c "trap \\"\\" TERM; sleep 300 & echo \\$! >>\\"\\$PIDS\\"; wait" & echo $! >>"$PIDS"
  exit 0'
# A step that is still running when the run is stopped by a signal (FAKE_RUN_HANG=1).
if [ "\${FAKE_RUN_HANG:-0}" = 1 ]; then
  ci_in_own_group "hanging step" bash -c 'echo $$ >>"$PIDS"; echo $$ >"$HANGING"; sleep 300'
fi
exit "\${FAKE_RUN_EXIT:-0}"
`;

/** Whether a process is running (a zombie waiting for its reaper counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the parenthesised command name.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

interface FakeRun {
  readonly checkout: string;
  readonly pidsFile: string;
  readonly hangingFile: string;
}

function fakeCheckout(): FakeRun {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-cleanup-'));
  const checkout = path.join(dir, 'checkout');
  fs.mkdirSync(path.join(checkout, '.ci/lib'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, '.ci/lib/cleanup.sh'), path.join(checkout, '.ci/lib/cleanup.sh'));
  fs.writeFileSync(path.join(checkout, '.ci/run'), RUN_SCRIPT, { mode: 0o755 });
  return {
    checkout,
    pidsFile: path.join(dir, 'pids'),
    hangingFile: path.join(dir, 'hanging'),
  };
}

/** Starts the fake run as `command args` in `cwd`; resolves with the child and its end. */
function startRun(
  run: FakeRun,
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
) {
  // stdin not a pipe: Debian's bash reads ~/.bashrc when stdin is a socket (as Node's pipes are).
  const child = spawn(command, args, {
    cwd: run.checkout,
    env: {
      PATH: process.env.PATH,
      PIDS: run.pidsFile,
      HANGING: run.hangingFile,
      CI_STOP_GRACE_SECONDS: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  // The exit, not the pipes' close: a process the run left running may hold them open.
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, ended, output: () => output };
}

const pidsOf = (run: FakeRun) =>
  fs.readFileSync(run.pidsFile, 'utf8').split('\n').filter(Boolean).map(Number);

describe('.ci/lib/cleanup.sh: CI stops what it started, and only that', () => {
  const started: ChildProcess[] = [];
  afterAll(() => {
    for (const child of started) child.kill('SIGKILL');
  });

  /** A process the run did not start whose command line holds the checkout's path. */
  const unrelatedBeside = (run: FakeRun) => {
    const editor = spawn(
      process.execPath,
      ['-e', 'setInterval(() => undefined, 1000)', path.join(run.checkout, '.ci/run')],
      { stdio: 'ignore', detached: true },
    );
    started.push(editor);
    return editor.pid!;
  };

  const bash = findOnPath('bash')!;
  /** How the run is started: the command and its arguments, in the checkout. */
  type Invocation = (run: FakeRun) => readonly [string, readonly string[]];
  const cases: readonly (readonly [string, number, Invocation])[] = [
    ['bash /abs/path/.ci/run', 0, (run) => [bash, [path.join(run.checkout, '.ci/run')]]],
    ['/abs/path/.ci/run', 0, (run) => [path.join(run.checkout, '.ci/run'), []]],
    ['bash .ci/run', 0, () => [bash, ['.ci/run']]],
    ['bash .ci/run (a failing run)', 3, () => [bash, ['.ci/run']]],
  ];
  it.each(cases)(
    '%s: stops the processes its steps left (grandchildren too), leaves the unrelated one, keeps exit %s',
    async (_how, exitCode, invocation) => {
      const run = fakeCheckout();
      const unrelated = unrelatedBeside(run);
      const [command, args] = invocation(run);
      const { ended, output } = startRun(run, command, args, {
        FAKE_RUN_EXIT: String(exitCode),
      });
      expect(await ended).toEqual({ code: exitCode, signal: null });
      const left = pidsOf(run);
      expect(left).toHaveLength(5);
      await waitFor('the leftovers to be gone', () => left.every((pid) => !alive(pid)), 10_000);
      expect(alive(unrelated)).toBe(true);
      // It said what it stopped; the SIGTERM-ignoring one needed the SIGKILL.
      expect(output()).toContain("ci: stopping what step 'leaky step' left running:");
      expect(output()).toMatch(/outlived SIGTERM by 1s; SIGKILL/);
    },
    30_000,
  );

  it('a run stopped by SIGTERM stops its running step and exits 143', async () => {
    const run = fakeCheckout();
    const unrelated = unrelatedBeside(run);
    const { child, ended } = startRun(run, bash, [path.join(run.checkout, '.ci/run')], {
      FAKE_RUN_HANG: '1',
    });
    started.push(child);
    await waitFor('the hanging step to start', () => fs.existsSync(run.hangingFile), 10_000);
    const hanging = Number(fs.readFileSync(run.hangingFile, 'utf8'));
    child.kill('SIGTERM');
    expect(await ended).toEqual({ code: 143, signal: null });
    const left = pidsOf(run);
    expect(left).toContain(hanging);
    await waitFor('the step and the leftovers to be gone', () => left.every((pid) => !alive(pid)));
    expect(alive(unrelated)).toBe(true);
  }, 30_000);

  it('.ci/run stops its steps this way, not by matching command lines', () => {
    const ci = fs.readFileSync(path.join(ROOT, '.ci/run'), 'utf8');
    expect(ci).toMatch(/^source "\$ROOT\/\.ci\/lib\/cleanup\.sh"$/m);
    expect(ci).toMatch(/^ci_cleanup_init$/m);
    expect(ci).not.toMatch(/pgrep|pkill|killall/);
    for (const step of ['npm test', 'npm run test:faults'])
      expect(ci).toMatch(new RegExp(`^ci_in_own_group "[^"]+" ${step}$`, 'm'));
  });
});
