import { spawn } from 'node:child_process';
import path from 'node:path';

/** What one measured process cost. */
export interface ProcessMeasurement {
  readonly wallMs: number;
  readonly maxRssMb: number;
  readonly cpuMs: number;
  readonly code: number | null;
  readonly stdout: string;
}

const PRELOAD = path.join(__dirname, 'report-usage.js');

/** Runs a Node script to completion and measures wall time, peak RSS and CPU from inside it. */
export function measureNodeProcess(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
  /** Node flags before the script (the job image's ENTRYPOINT flags). */
  imageNodeArgs: readonly string[] = [],
): Promise<ProcessMeasurement> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    // `script` may be '-e' with the code as the first argument.
    // BENCH_NODE measures another Node binary (e.g. Node 22 for its compile cache) the same way.
    const node = process.env.BENCH_NODE ?? process.execPath;
    // BENCH_NODE_ARGS: flags before the script, for those NODE_OPTIONS refuses (Node 20: --cpu-prof).
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(
      node,
      [...imageNodeArgs, ...nodeArgs, '--require', PRELOAD, script, ...args],
      {
        // BENCH_NODE_OPTIONS replaces every measured process's NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=DIR`).
        env: process.env.BENCH_NODE_OPTIONS
          ? { ...env, NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS }
          : env,
        ...(cwd ? { cwd } : {}),
        stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
      },
    );
    let stdout = '';
    let usage = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    (child.stdio[3] as NodeJS.ReadableStream).on(
      'data',
      (chunk: Buffer) => (usage += chunk.toString()),
    );
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const parsed = usage
        ? (JSON.parse(usage) as { maxRssKb: number; cpuUs: number })
        : { maxRssKb: 0, cpuUs: 0 };
      resolve({
        wallMs,
        maxRssMb: parsed.maxRssKb / 1024,
        cpuMs: parsed.cpuUs / 1000,
        code,
        stdout,
      });
    });
  });
}
