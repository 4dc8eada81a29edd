#!/usr/bin/env node
// `npm start`: runs the whole system on this machine (see README.md, "Quick start").
import fs from 'node:fs';
import path from 'node:path';
import { UsageError, USAGE_EXIT_CODE } from '../../common/cli-flags';
import { startConsole, type LocalConsole } from '../console/server';
import { loadLocalStackConfig } from './config';
import { runDemo, type RunningStack } from './demo-run';
import { parseStartArgs, START_USAGE, type StartArgs } from './start-args';
import type { Stack } from './stack-description';
import { startStack } from './start-stack';

const ROOT = path.resolve(__dirname, '../../../..');

type Say = (text: string, extra?: Record<string, unknown>) => void;

/** The arguments, or the exit code once usage or help was printed. */
function parseArgsOrExplain(argv: readonly string[]): StartArgs | number {
  try {
    const args = parseStartArgs(argv);
    if (!args.help) return args;
    process.stdout.write(`${START_USAGE}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`npm start: ${error.message}\n${START_USAGE}\n`);
    return USAGE_EXIT_CODE;
  }
}

/** Progress lines: plain text on a terminal, one JSON object per line otherwise (or with --json). */
function sayer(json: boolean, started: number): Say {
  return (text, extra = {}) =>
    process.stdout.write(
      json
        ? `${JSON.stringify({ time: new Date().toISOString(), elapsed_ms: Date.now() - started, event: text, ...extra })}\n`
        : `${text}\n`,
    );
}

/** What a stop must end: the stack and the console once started; stopping happens once. */
interface Running {
  stack?: Stack;
  console?: LocalConsole;
  stopping: boolean;
}

/**
 * Stops the console and the stack, removes stack.json and exits with `code`. A closed stdout
 * (piped into `head`), a crash, Ctrl-C or SIGTERM stop everything instead of orphaning children.
 */
function installStop(running: Running, say: Say, workDir: string): (code: number) => Promise<void> {
  const stop = async (code: number) => {
    if (running.stopping) return;
    running.stopping = true;
    say('Stopping every component…');
    await running.console?.close().catch(() => undefined);
    await running.stack?.stop();
    fs.rmSync(path.join(workDir, 'stack.json'), { force: true });
    say('Stopped. Logs stay in ' + path.relative(process.cwd(), path.join(workDir, 'logs')));
    process.exit(code);
  };
  process.stdout.on('error', () => void stop(0));
  process.on('uncaughtException', (error) => {
    process.stderr.write(`npm start: ${error.message}\n`);
    void stop(1);
  });
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  return stop;
}

/** The local console (emulators/pullsecret/console/): its URL goes to stack.json and the summary. */
async function startStackConsole(stack: Stack, say: Say): Promise<LocalConsole | undefined> {
  try {
    const localConsole = await startConsole(stack.description);
    say(`  started ${'console'.padEnd(15)} ${localConsole.endpoint}`, {
      component: 'console',
      endpoint: localConsole.endpoint,
    });
    return localConsole;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    say(`Failed to start the local console: ${message}`, { outcome: 'error' });
    return undefined;
  }
}

async function main(): Promise<number> {
  // The orchestrator's own Google clients (Pub/Sub wiring) must not probe for a metadata server.
  process.env.METADATA_SERVER_DETECTION = 'none';
  const args = parseArgsOrExplain(process.argv.slice(2));
  if (typeof args === 'number') return args;
  const config = loadLocalStackConfig(process.env);
  const json = args.json || !process.stdout.isTTY;
  const workDir = path.resolve(args.workDir ?? path.join(ROOT, '.local'));
  const stateFile = path.join(workDir, 'stack.json');
  const started = Date.now();
  const say = sayer(json, started);

  refuseIfRunning(stateFile);
  fs.rmSync(path.join(workDir, 'logs'), { recursive: true, force: true });
  // Each run's traces start empty too: `npm run trace` shows this run's reconciles.
  fs.rmSync(path.join(workDir, 'traces'), { recursive: true, force: true });
  const running: Running = { stopping: false };
  const stop = installStop(running, say, workDir);
  say(
    `Starting the Pull Secret Adapter locally (logs: ${path.relative(process.cwd(), path.join(workDir, 'logs'))})`,
  );
  running.stack = await startStack({
    root: ROOT,
    workDir,
    adapterInstances: config.adapterInstances,
    delivery: config.delivery,
    namespaceLayout: config.namespaceLayout,
    onProgress: (component, info) =>
      say(`  started ${component.padEnd(15)} ${String(info.endpoint ?? '')}`, {
        component,
        endpoint: info.endpoint,
      }),
  });
  running.console = await startStackConsole(running.stack, say);
  if (!running.console) {
    await stop(1);
    return 1;
  }
  const d: RunningStack = {
    ...running.stack.description,
    console: { endpoint: running.console.endpoint },
  };
  fs.writeFileSync(stateFile, `${JSON.stringify(d, null, 2)}\n`, { mode: 0o600 });
  if (running.stopping) return 0;
  try {
    return await runDemo(d, {
      ...args,
      json,
      started,
      say,
      stop,
      isStopping: () => running.stopping,
    });
  } catch (error) {
    say(`Failed: ${error instanceof Error ? error.message : String(error)}`, { outcome: 'error' });
    await stop(1);
    return 1;
  }
}

function refuseIfRunning(stateFile: string): void {
  if (!fs.existsSync(stateFile)) return;
  try {
    const { pid } = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { pid?: number };
    if (pid && pid !== process.pid) {
      process.kill(pid, 0);
      throw new Error(
        `A local stack is already running (pid ${pid}); its endpoints are in ${stateFile}. Stop it with Ctrl-C (or kill ${pid}) first.`,
      );
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') fs.rmSync(stateFile, { force: true });
    else throw error;
  }
}

main().then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `npm start failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
