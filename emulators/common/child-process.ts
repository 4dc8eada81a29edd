import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';

/** A child process that announced readiness with a JSON line. */
export interface ReadyProcess {
  readonly child: ChildProcess;
  readonly info: Record<string, unknown>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Where stdout and stderr go after the ready line (a log file); ignored when absent. */
  readonly logFile?: string;
  readonly timeoutMs?: number;
  /** Which JSON line means ready; default: the first JSON object line. */
  readonly isReady?: (line: Record<string, unknown>) => boolean;
  /** For programs without a ready line: polled until it resolves true (e.g. an HTTP check). */
  readonly probe?: () => Promise<boolean>;
}

/** Starts a process and resolves when it prints its ready JSON line; rejects if it exits first. */
export function startReadyProcess(options: StartOptions): Promise<ReadyProcess> {
  // A process probed for readiness writes its log file itself, so its lines land when it writes
  // them (the local timeline reads them) and survive this process; otherwise its output is read
  // here for the ready line and copied to the log.
  const directFd =
    options.probe && options.logFile ? fs.openSync(options.logFile, 'a', 0o600) : undefined;
  const child = spawn(options.command, [...options.args], {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: directFd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', directFd, directFd],
  });
  if (directFd !== undefined) fs.closeSync(directFd);
  const log =
    options.logFile && directFd === undefined
      ? fs.createWriteStream(options.logFile, { flags: 'a', mode: 0o600 })
      : undefined;
  child.stderr?.on('data', (chunk: Buffer) => log?.write(chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (graceMs = 5000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
    log?.end();
  };
  return new Promise((resolve, reject) => {
    let ready = false;
    const lines = child.stdout ? readline.createInterface({ input: child.stdout }) : undefined;
    const timer = setTimeout(() => {
      void stop(500);
      reject(
        new Error(
          `${options.command} ${options.args.join(' ')} did not become ready within ${options.timeoutMs ?? 30_000} ms`,
        ),
      );
    }, options.timeoutMs ?? 30_000);
    lines?.on('line', (line) => {
      log?.write(`${line}\n`);
      if (ready || options.probe) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return;
      }
      if (
        parsed &&
        typeof parsed === 'object' &&
        (options.isReady ?? (() => true))(parsed as Record<string, unknown>)
      ) {
        ready = true;
        clearTimeout(timer);
        resolve({ child, info: parsed as Record<string, unknown>, stop });
      }
    });
    if (options.probe) {
      const probe = options.probe;
      const poll = async () => {
        while (!ready && child.exitCode === null && child.signalCode === null) {
          if (await probe().catch(() => false)) {
            ready = true;
            clearTimeout(timer);
            resolve({ child, info: {}, stop });
            return;
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      void poll();
    }
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      if (ready) return;
      clearTimeout(timer);
      reject(
        new Error(
          `${options.command} ${options.args.join(' ')} exited (${code ?? signal}) before it was ready; see ${options.logFile ?? 'its output'}`,
        ),
      );
    });
  });
}
