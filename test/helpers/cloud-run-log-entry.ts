import { createLogger, type RootLogger } from '../../shared/logging/logger';

/**
 * The Cloud Logging entries a Cloud Run job execution's logger produces, built from what the real
 * logger writes to stdout, as Cloud Run's logging agent builds them
 * (https://cloud.google.com/run/docs/logging, "Special JSON fields in messages"): `severity`, the
 * timestamp and the `logging.googleapis.com/*` fields become the entry's own fields; everything
 * else (message, metadata) stays in jsonPayload. For evaluating log-based metric filters
 * (logging-filter.ts) on the lines the code really writes.
 */
export async function jobLogEntries(
  job: { readonly name: string; readonly project: string },
  write: (logger: RootLogger) => Promise<void>,
): Promise<Record<string, unknown>[]> {
  // logging-winston looks for a metadata server to describe the resource; none here.
  process.env.METADATA_SERVER_DETECTION ??= 'none';
  const lines: string[] = [];
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    (rest.find((arg) => typeof arg === 'function') as (() => void) | undefined)?.();
    return true;
  }) as typeof process.stdout.write;
  try {
    const logger = createLogger({
      component: 'pullsecret-job',
      level: 'info',
      format: 'json',
      projectId: job.project,
    });
    await write(logger);
    await logger.close();
  } finally {
    process.stdout.write = stdoutWrite;
  }
  return lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.message !== undefined) // logging-winston's own diagnostic entry
    .map((line) => {
      const { severity, timestamp, ...payload } = line;
      const jsonPayload = Object.fromEntries(
        Object.entries(payload).filter(([key]) => !key.startsWith('logging.googleapis.com/')),
      );
      return {
        logName: `projects/${job.project}/logs/run.googleapis.com%2Fstdout`,
        resource: {
          type: 'cloud_run_job',
          labels: { job_name: job.name, location: 'us-central1', project_id: job.project },
        },
        severity,
        timestamp,
        jsonPayload,
      };
    });
}
