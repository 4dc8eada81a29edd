import { randomBytes } from 'node:crypto';
import type { ExecutionState } from './execution-state';
import { executionFinishedEntry } from './finished-entry';
import { parseJobName } from './job-definitions';

/**
 * Every Cloud Audit Logs entry one RunJob writes, in the order Cloud Run writes them, to read
 * against Google's documentation:
 *
 * 1. The Data Access request entry of `google.cloud.run.v2.Jobs.RunJob`: RunJob needs
 *    run.jobs.run (DATA_WRITE), and v2 RunJob is a long-running operation, which "usually
 *    generate[s] two audit log entries: one when the operation starts and another when it ends"
 *    (https://cloud.google.com/run/docs/audit-logging). The two share `operation.id`; the first has
 *    `operation.first`, the last `operation.last` (LogEntryOperation,
 *    https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry#logentryoperation,
 *    https://cloud.google.com/logging/docs/audit/understanding-audit-logs). Written only where
 *    DATA_WRITE audit logs are on (the module turns them on: run-job-overrides.tf).
 * 2. The operation's completion entry (`operation.last`). RunJob's Operation has the Execution as
 *    both metadata and response (google/cloud/run/v2/job.proto, `operation_info`;
 *    https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run) and, as
 *    `gcloud run jobs execute --wait` relies on, is done when the execution ends: so this entry
 *    carries the finished Execution in `protoPayload.response`. When exactly Cloud Run writes it is
 *    not documented beyond "when it ends".
 * 3. The `system_event` entry with methodName `/Jobs.RunJob` (finished-entry.ts), written when the
 *    execution ends. Not on Google's list of audited methods: its shape is what Cloud Run is seen to
 *    write, the reason the reporter reads it defensively (decode-report.ts).
 *
 * What reaches the reporter is what the log sink's filter selects (logging.tf): `routedBySink`.
 */
export interface RunJobAuditEntries {
  /** Entry 1, written when the execution is created. */
  readonly started: Record<string, unknown>;
  /** Entries 2 and 3, written when it has finished. */
  finished(executionJson: Record<string, unknown>): readonly Record<string, unknown>[];
}

/** The audit entries of the RunJob that created `execution` (`request` as the caller sent it). */
export function runJobAuditEntries(
  execution: ExecutionState,
  request: Record<string, unknown>,
  caller = 'launcher@demo-project.iam.gserviceaccount.com',
): RunJobAuditEntries {
  const { project, location, job } = parseJobName(execution.job.name);
  const operationId = `projects/${project}/locations/${location}/operations/${randomBytes(8).toString('hex')}`;
  const dataAccess = (
    time: Date,
    operation: Record<string, unknown>,
    payload: Record<string, unknown>,
    failed = false,
  ) => ({
    insertId: randomBytes(8).toString('hex'),
    logName: `projects/${project}/logs/cloudaudit.googleapis.com%2Fdata_access`,
    operation: { id: operationId, producer: 'run.googleapis.com', ...operation },
    protoPayload: {
      '@type': 'type.googleapis.com/google.cloud.audit.AuditLog',
      serviceName: 'run.googleapis.com',
      methodName: 'google.cloud.run.v2.Jobs.RunJob',
      resourceName: execution.job.name,
      authenticationInfo: { principalEmail: caller },
      authorizationInfo: [
        { resource: execution.job.name, permission: 'run.jobs.run', granted: true },
      ],
      ...payload,
    },
    resource: { type: 'cloud_run_job', labels: { job_name: job, location, project_id: project } },
    timestamp: time.toISOString(),
    receiveTimestamp: new Date().toISOString(),
    severity: failed ? 'ERROR' : 'NOTICE',
  });
  return {
    started: dataAccess(
      execution.createTime,
      { first: true },
      {
        request: {
          '@type': 'type.googleapis.com/google.cloud.run.v2.RunJobRequest',
          ...request,
        },
      },
    ),
    finished: (executionJson) => {
      const time = execution.completionTime ?? new Date();
      const failed = execution.end !== undefined && execution.end.state !== 'CONDITION_SUCCEEDED';
      return [
        dataAccess(time, { last: true }, { response: executionJson }, failed),
        executionFinishedEntry(execution),
      ];
    },
  };
}

/**
 * The log sink's filter (terraform/modules/pullsecret-adapter/logging.tf), clause by clause: only
 * the `system_event` `/Jobs.RunJob` entries of the job reach the execution-finished topic.
 */
export function routedBySink(entry: Record<string, unknown>, jobShortName?: string): boolean {
  const resource = entry.resource as { type?: string; labels?: { job_name?: string } } | undefined;
  const payload = entry.protoPayload as { methodName?: string } | undefined;
  return (
    resource?.type === 'cloud_run_job' &&
    (jobShortName === undefined || resource.labels?.job_name === jobShortName) &&
    typeof entry.logName === 'string' &&
    entry.logName.endsWith('/logs/cloudaudit.googleapis.com%2Fsystem_event') &&
    payload?.methodName === '/Jobs.RunJob'
  );
}
