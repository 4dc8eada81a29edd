// Each audit entry Cloud Run writes for one RunJob, and what the reporter makes of it
// (emulators/cloud-run/audit-entries.ts cites the documentation for each):
// - RunJob's Data Access entries (https://cloud.google.com/run/docs/audit-logging: DATA_WRITE,
//   v2 RunJob an LRO, "one when the operation starts and another when it ends"), told apart by
//   LogEntry.operation.first/last (https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry#logentryoperation);
// - the system_event `/Jobs.RunJob` entry written when the execution ends (what the sink routes).
import { decodeReport } from '../../../functions/reporter/report/decode-report';
import { PUBSUB_MESSAGE_PUBLISHED } from '../../../shared/events/decode';

const JOB = 'projects/demo-project/locations/us-central1/jobs/pullsecret-job';
const EXECUTION = `${JOB}/executions/pullsecret-job-abcde`;
const resource = {
  type: 'cloud_run_job',
  labels: { job_name: 'pullsecret-job', location: 'us-central1', project_id: 'demo-project' },
};
const operation = {
  id: 'projects/demo-project/locations/us-central1/operations/1',
  producer: 'run.googleapis.com',
};
const dataAccess = (extra: Record<string, unknown>, payload: Record<string, unknown>) => ({
  logName: 'projects/demo-project/logs/cloudaudit.googleapis.com%2Fdata_access',
  resource,
  ...extra,
  protoPayload: {
    serviceName: 'run.googleapis.com',
    methodName: 'google.cloud.run.v2.Jobs.RunJob',
    resourceName: JOB,
    ...payload,
  },
});

const event = (entry: unknown) => ({
  id: 'm-1',
  type: PUBSUB_MESSAGE_PUBLISHED,
  data: { message: { data: Buffer.from(JSON.stringify(entry)).toString('base64') } },
});

describe('decodeReport: the audit entries of one RunJob', () => {
  it.each([
    [
      'the LRO request entry (operation.first): ignored, the execution has only been created',
      dataAccess({ operation: { ...operation, first: true } }, { request: { name: JOB } }),
      { kind: 'ignored' },
    ],
    [
      'a v1 RunJob entry without operation: ignored',
      dataAccess({}, { methodName: 'google.cloud.run.v1.Jobs.RunJob' }),
      { kind: 'ignored' },
    ],
    [
      'the LRO completion entry (operation.last): the execution its response names',
      dataAccess(
        { operation: { ...operation, last: true } },
        {
          response: {
            '@type': 'type.googleapis.com/google.cloud.run.v2.Execution',
            name: EXECUTION,
          },
        },
      ),
      { kind: 'execution-finished', execution: EXECUTION, statusCode: 0 },
    ],
    [
      'the system_event /Jobs.RunJob entry of a cancelled execution: code CANCELLED',
      {
        logName: 'projects/demo-project/logs/cloudaudit.googleapis.com%2Fsystem_event',
        resource,
        labels: { 'run.googleapis.com/execution_name': 'pullsecret-job-abcde' },
        protoPayload: {
          methodName: '/Jobs.RunJob',
          resourceName: 'namespaces/demo-project/executions/pullsecret-job-abcde',
          status: { code: 1, message: 'The execution was cancelled.' },
        },
      },
      { kind: 'execution-finished', execution: EXECUTION, statusCode: 1 },
    ],
    [
      'another method on the job: ignored',
      dataAccess({}, { methodName: 'google.cloud.run.v2.Jobs.GetJob' }),
      { kind: 'ignored' },
    ],
  ])('%s', (_, entry, expected) => {
    expect(decodeReport(event(entry), JOB)).toMatchObject(expected);
  });

  it('an LRO completion entry naming no execution is unreadable, loudly', () => {
    const entry = dataAccess({ operation: { ...operation, last: true } }, { response: {} });
    expect(decodeReport(event(entry), JOB)).toMatchObject({ kind: 'unreadable-finished-entry' });
  });
});
