import { spawn } from 'node:child_process';
import path from 'node:path';
import { jobNodeArgs } from '../../emulators/pullsecret/job-image';

export const ROOT = path.resolve(__dirname, '../..');
/** The job's bundle, as the image runs it (scripts/bundle.cjs). */
export const JOB_CLI = path.join(ROOT, 'dist-bundle/pull-secret-job/main.mjs');

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a built entry point with the same Node binary as the tests (Node 20 or 22 in CI); the job's
 * bundle with the flags and NODE_OPTIONS its image runs it with (emulators/pullsecret/job-image.ts).
 */
export function runNode(
  script: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000,
  /** argv[0] of the process (the Cloud Run emulator marks its task processes with one). */
  argv0?: string,
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const nodeArgs = script === JOB_CLI ? jobNodeArgs() : [];
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
      env: {
        PATH: process.env.PATH,
        METADATA_SERVER_DETECTION: 'none',
        ...env,
      } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(argv0 ? { argv0 } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
