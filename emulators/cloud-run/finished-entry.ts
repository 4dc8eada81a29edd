import { randomBytes } from 'node:crypto';
import type { ExecutionState } from './execution-state';
import { parseJobName } from './job-definitions';

/**
 * The Cloud Audit Logs system-event entry Cloud Run writes when a job execution finishes, as a
 * log sink routes it to Pub/Sub: `protoPayload.methodName="/Jobs.RunJob"`,
 * `resource.type="cloud_run_job"`, `protoPayload.status.code` non-zero on failure and
 * `protoPayload.resourceName` naming the execution.
 */
export function executionFinishedEntry(execution: ExecutionState): Record<string, unknown> {
  const { project, location, job } = parseJobName(execution.job.name);
  const end = execution.end;
  const failed = end !== undefined && end.state !== 'CONDITION_SUCCEEDED';
  // google.rpc.Code: CANCELLED for a cancelled execution, UNKNOWN for any other failure.
  const code = end?.executionReason === 'CANCELLED' ? 1 : failed ? 2 : 0;
  const time = (execution.completionTime ?? new Date()).toISOString();
  return {
    insertId: randomBytes(8).toString('hex'),
    logName: `projects/${project}/logs/cloudaudit.googleapis.com%2Fsystem_event`,
    protoPayload: {
      '@type': 'type.googleapis.com/google.cloud.audit.AuditLog',
      status: { code, ...(failed ? { message: end.message } : {}) },
      serviceName: 'run.googleapis.com',
      methodName: '/Jobs.RunJob',
      resourceName: `namespaces/${project}/executions/${execution.shortName}`,
      response: {
        '@type': 'type.googleapis.com/google.cloud.run.v1.Execution',
        apiVersion: 'run.googleapis.com/v1',
        kind: 'Execution',
        metadata: {
          name: execution.shortName,
          namespace: project,
          labels: { 'run.googleapis.com/job': job },
        },
        status: {
          succeededCount: execution.succeededCount,
          failedCount: execution.failedCount,
          cancelledCount: execution.cancelledCount,
          completionTime: time,
        },
      },
    },
    resource: { type: 'cloud_run_job', labels: { job_name: job, location, project_id: project } },
    timestamp: time,
    receiveTimestamp: new Date().toISOString(),
    severity: failed ? 'ERROR' : 'INFO',
    labels: { 'run.googleapis.com/execution_name': execution.shortName },
  };
}
