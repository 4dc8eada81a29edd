import { CLOUD_RUN_EMULATOR_ARGV0 } from '../../shared/gcp/cloud-run-emulator-mark';
import { RESULT_LINE_KEY, jobResultSchema, type JobResult } from '../../shared/job-result';
import { JOB_CLI, runNode, type ProcessResult } from './run-process';

/** A valid pull secret whose parts are easy to search for in outputs. */
export function samplePullSecret(
  user = 'canary-user',
  password = 'canary-password-7f3a9c',
): string {
  const auth = Buffer.from(`${user}:${password}`).toString('base64');
  return JSON.stringify({
    auths: {
      'quay.io': { auth, email: 'ops@example.com' },
      'registry.redhat.io': { auth },
    },
  });
}

export interface JobRun extends ProcessResult {
  result: JobResult;
  /** Every stdout line parsed as JSON (the job prints nothing else in json format). */
  lines: Record<string, unknown>[];
}

/** Runs `pull-secret run-job pull-secret` as a process and parses its last line. */
export async function runJob(
  env: Record<string, string | undefined>,
  args: string[] = [],
  /** Run as the Cloud Run emulator runs a task (its argv[0] mark): on "Cloud Run", locally. */
  options: { asEmulatedTask?: boolean } = {},
): Promise<JobRun> {
  const run = await runNode(
    JOB_CLI,
    ['run-job', 'pull-secret', ...args],
    { RETRY_BASE_DELAY: '50ms', ...env },
    undefined,
    options.asEmulatedTask ? CLOUD_RUN_EMULATOR_ARGV0 : undefined,
  );
  const lines = run.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const last = lines[lines.length - 1];
  if (!last || !(RESULT_LINE_KEY in last)) {
    throw new Error(`job printed no result line (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
  return { ...run, lines, result: jobResultSchema.parse(last[RESULT_LINE_KEY]) };
}
