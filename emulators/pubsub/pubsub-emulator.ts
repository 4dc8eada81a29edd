import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { RunningEmulator } from '../common/emulator';
import { freePort } from '../common/free-port';
import { locatePubSubEmulator } from './locate';

/**
 * How long a starting emulator may take to answer. A JVM's start is CPU-bound: 5-10 s on an idle
 * 2-core machine, and past 30 s when the machine is saturated (a CI run beside other test
 * processes was measured failing at 30 s). The wait ends as soon as it answers, so a generous
 * bound costs nothing on a healthy start.
 */
const READY_TIMEOUT_MS = 90_000;

export interface PubSubEmulatorOptions {
  readonly host?: string;
  /** 0 or absent picks a free port. */
  readonly port?: number;
  readonly dataDir?: string;
  readonly logFile?: string;
  readonly readyTimeoutMs?: number;
  /** Run the JVM under a Node guard with the parent watchdog (the local stack does). */
  readonly guarded?: {
    readonly parentPid: number;
    readonly watchdog: string;
    readonly guard: string;
  };
}

/** A running Pub/Sub emulator; clients find it through PUBSUB_EMULATOR_HOST=`endpoint`. */
export interface PubSubEmulator extends RunningEmulator {
  readonly pid: number;
}

/**
 * Starts Google's Pub/Sub emulator (Java). Its launcher execs the JVM, so the child's PID is the
 * JVM's and stopping it by PID leaves nothing behind (unlike killing `gcloud beta emulators`, whose
 * Java child survives). A taken port does not make the emulator exit, so readiness is checked
 * against our own process: it must still be alive when the port answers.
 */
export async function startPubSubEmulator(
  options: PubSubEmulatorOptions = {},
): Promise<PubSubEmulator> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port && options.port > 0 ? options.port : await freePort(host);
  const script = locatePubSubEmulator();
  const args = [
    `--host=${host}`,
    `--port=${port}`,
    ...(options.dataDir ? [`--data-dir=${options.dataDir}`] : []),
  ];
  const log = options.logFile ? fs.openSync(options.logFile, 'a', 0o600) : 'ignore';
  const env = {
    ...process.env,
    JAVA_TOOL_OPTIONS: process.env.JAVA_TOOL_OPTIONS ?? '-Xms64m -Xmx512m',
  };
  const child = options.guarded
    ? spawn(
        process.execPath,
        ['--require', options.guarded.watchdog, options.guarded.guard, script, ...args],
        {
          stdio: ['ignore', log, log],
          env: { ...env, EXIT_WITH_PARENT_PID: String(options.guarded.parentPid) },
        },
      )
    : spawn(script, args, { stdio: ['ignore', log, log], env });
  if (typeof log === 'number') fs.closeSync(log);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => ((exited = true), resolve())),
  );
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exit;
    clearTimeout(timer);
  };
  const endpoint = `${host}:${port}`;
  const readyTimeoutMs = options.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (exited)
      throw new Error(
        `The Pub/Sub emulator exited before it was ready${options.logFile ? `; see ${options.logFile}` : ''}.`,
      );
    try {
      const response = await fetch(`http://${endpoint}/`, { signal: AbortSignal.timeout(500) });
      if (response.ok && !exited) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `The Pub/Sub emulator did not answer on ${endpoint} within ${readyTimeoutMs} ms.`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name: 'pubsub',
    endpoint,
    pid: child.pid ?? -1,
    info: () => ({
      name: 'pubsub',
      endpoint,
      pid: child.pid,
      env: { PUBSUB_EMULATOR_HOST: endpoint },
    }),
    stop,
  };
}
