import type { v2 } from '@google-cloud/run';
import { CloudRunJobLauncher } from '../../../functions/adapter/cloud-run/cloud-run-job-launcher';
import type { LaunchRequest } from '../../../functions/adapter/cloud-run/execution-env';
import { PermanentError } from '../../../shared/errors';
import { RecordingLogger } from '../../helpers/recording-logger';

const JOB = 'projects/p/locations/l/jobs/pullsecret-job';
const request: LaunchRequest = {
  clusterId: 'cls-1',
  clusterName: 'prod',
  generation: 3,
  gcpProjectId: 'p',
  namespace: 'clusters-cls-1',
  operation: 'apply',
  attempt: 1,
  launchId: 'launch-1',
  pullSecret: { source: 'cluster-spec', specPath: 'a', additionalSpecPath: 'b' },
};

/** Answers RunJob with a fixed long-running operation, as the JobsClient hands it back. */
class FakeJobsClient {
  readonly requests: unknown[] = [];
  constructor(
    private readonly operation: {
      metadata?: { name?: string; createTime?: { seconds: string; nanos: number } };
      latestResponse?: { done?: boolean; error?: { code?: number; message?: string } };
    },
  ) {}
  async runJob(request: unknown): Promise<unknown[]> {
    this.requests.push(request);
    return [this.operation];
  }
}

const launcher = (client: FakeJobsClient, logger = new RecordingLogger()) =>
  new CloudRunJobLauncher(client as unknown as v2.JobsClient, JOB, { timeoutMs: 1000, logger });

describe('CloudRunJobLauncher', () => {
  it('passes the launch id as LAUNCH_ID and returns the execution and its create time', async () => {
    const client = new FakeJobsClient({
      metadata: { name: `${JOB}/executions/e-1`, createTime: { seconds: '1795000000', nanos: 0 } },
      latestResponse: { done: false },
    });
    await expect(launcher(client).launch(request)).resolves.toEqual({
      execution: `${JOB}/executions/e-1`,
      createTime: new Date(1795000000_000).toISOString(),
    });
    expect(JSON.stringify(client.requests[0])).toContain('{"name":"LAUNCH_ID","value":"launch-1"}');
  });

  it('reads operation.error: without an execution it is the launch failure, classified by its code', async () => {
    const client = new FakeJobsClient({
      latestResponse: { done: true, error: { code: 7, message: 'Permission denied on job' } },
    });
    const failure = await launcher(client)
      .launch(request)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PermanentError);
    expect((failure as PermanentError).reason).toBe('PermissionDenied');
    expect((failure as Error).message).toContain('Permission denied on job');
  });

  it('reads operation.error: with an execution, that execution already ended; it is returned and the error logged', async () => {
    const logger = new RecordingLogger();
    const client = new FakeJobsClient({
      metadata: { name: `${JOB}/executions/e-2` },
      latestResponse: { done: true, error: { code: 9, message: 'Task failed' } },
    });
    await expect(launcher(client, logger).launch(request)).resolves.toEqual({
      execution: `${JOB}/executions/e-2`,
    });
    expect(logger.lines.find((l) => l.level === 'warn')?.message).toContain('Task failed');
  });
});
