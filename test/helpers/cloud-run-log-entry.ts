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
  return cloudRunLogEntries(
    'pullsecret-job',
    job.project,
    {
      type: 'cloud_run_job',
      labels: { job_name: job.name, location: 'us-central1', project_id: job.project },
    },
    write,
  );
}

/**
 * The same for a Cloud Run function (a Cloud Run service: resource `cloud_run_revision`), whose
 * logger is built as the functions build theirs (component = the function's name).
 */
export async function serviceLogEntries(
  service: { readonly name: string; readonly project: string; readonly component: string },
  write: (logger: RootLogger) => Promise<void>,
): Promise<Record<string, unknown>[]> {
  return cloudRunLogEntries(
    service.component,
    service.project,
    {
      type: 'cloud_run_revision',
      labels: {
        service_name: service.name,
        revision_name: `${service.name}-00001-abc`,
        location: 'us-central1',
        project_id: service.project,
      },
    },
    write,
  );
}

async function cloudRunLogEntries(
  component: string,
  project: string,
  resource: { readonly type: string; readonly labels: Readonly<Record<string, string>> },
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
    const logger = createLogger({ component, level: 'info', format: 'json', projectId: project });
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
        logName: `projects/${project}/logs/run.googleapis.com%2Fstdout`,
        resource,
        severity,
        timestamp,
        jsonPayload,
      };
    });
}
