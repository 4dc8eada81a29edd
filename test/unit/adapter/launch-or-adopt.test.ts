import type {
  ExecutionLookup,
  LaunchQuery,
} from '../../../functions/adapter/cloud-run/execution-lookup';
import type {
  JobLauncher,
  LaunchedExecution,
  LaunchRequest,
} from '../../../functions/adapter/cloud-run/execution-env';
import { launchOrAdopt } from '../../../functions/adapter/flows/launch-or-adopt';
import { LaunchRate } from '../../../functions/adapter/cloud-run/launch-rate';
import { PermanentError, TransientError } from '../../../shared/errors';
import { RecordingLogger } from '../../helpers/recording-logger';

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

/** A launcher that fails as scripted; an execution it "created" shows up in the lookup. */
class ScriptedCloudRun implements JobLauncher, ExecutionLookup {
  readonly calls: string[] = [];
  private readonly created: LaunchedExecution[] = [];
  constructor(
    private readonly script: ('ok' | 'lost-answer' | 'unavailable' | 'denied' | 'quota')[],
  ) {}

  async launch(): Promise<LaunchedExecution> {
    this.calls.push('RunJob');
    const step = this.script.shift() ?? 'ok';
    if (step === 'denied') throw new PermanentError('denied', 'PermissionDenied');
    if (step === 'quota') throw new TransientError('quota', 'QuotaExceeded');
    if (step === 'unavailable') throw new TransientError('unavailable', 'CloudRunUnavailable');
    const execution = { execution: `e-${this.created.length + 1}` };
    this.created.push(execution);
    if (step === 'lost-answer') throw new TransientError('deadline', 'CloudRunUnavailable');
    return execution;
  }
  async findLaunched(query: LaunchQuery): Promise<LaunchedExecution | undefined> {
    this.calls.push(`ListExecutions:${query.launchId}`);
    return this.created[0];
  }
  async read(): Promise<undefined> {
    this.calls.push('GetExecution');
    return undefined;
  }
}

const run = (cloudRun: ScriptedCloudRun, rate?: LaunchRate) =>
  launchOrAdopt(request, '2026-11-22T12:00:00.000Z', {
    launcher: cloudRun,
    lookup: cloudRun,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
    logger: new RecordingLogger(),
    sleep: async () => undefined,
    ...(rate ? { rate } : {}),
  });

describe('launchOrAdopt and the RunJob quota', () => {
  it('rethrows RESOURCE_EXHAUSTED at once: no search (nothing was created), no retry, the rate pauses', async () => {
    const cloudRun = new ScriptedCloudRun(['quota', 'ok']);
    const rate = new LaunchRate({ perMinute: 0, instances: 1 }, () => 0);
    await expect(run(cloudRun, rate)).rejects.toMatchObject({ reason: 'QuotaExceeded' });
    expect(cloudRun.calls).toEqual(['RunJob']);
    expect(rate.take('new-work')).toEqual({ kind: 'wait', ms: 10_000 });
  });

  it('takes a token for every in-process retry: none left, the error goes to the redelivery', async () => {
    const cloudRun = new ScriptedCloudRun(['unavailable', 'ok']);
    const rate = new LaunchRate({ perMinute: 12, instances: 1 }, () => 0); // burst 2
    rate.take('new-work');
    rate.take('new-work');
    await expect(run(cloudRun, rate)).rejects.toMatchObject({ reason: 'CloudRunUnavailable' });
    expect(cloudRun.calls).toEqual(['RunJob', 'ListExecutions:launch-1']);
  });
});

describe('launchOrAdopt', () => {
  it('a clean launch is exactly one Cloud Run call', async () => {
    const cloudRun = new ScriptedCloudRun(['ok']);
    await expect(run(cloudRun)).resolves.toEqual({ execution: 'e-1', adopted: false });
    expect(cloudRun.calls).toEqual(['RunJob']);
  });

  it('a lost RunJob answer adopts the execution it created instead of launching again', async () => {
    const cloudRun = new ScriptedCloudRun(['lost-answer']);
    await expect(run(cloudRun)).resolves.toEqual({ execution: 'e-1', adopted: true });
    expect(cloudRun.calls).toEqual(['RunJob', 'ListExecutions:launch-1']);
  });

  it('a RunJob that created nothing is retried after looking; the last failure is rethrown', async () => {
    const retried = new ScriptedCloudRun(['unavailable', 'ok']);
    await expect(run(retried)).resolves.toEqual({ execution: 'e-1', adopted: false });
    expect(retried.calls).toEqual(['RunJob', 'ListExecutions:launch-1', 'RunJob']);

    const down = new ScriptedCloudRun(['unavailable', 'unavailable', 'unavailable']);
    await expect(run(down)).rejects.toBeInstanceOf(TransientError);
    expect(down.calls.filter((c) => c === 'RunJob')).toHaveLength(3);
  });

  it('a permanent failure is rethrown at once, without searching', async () => {
    const cloudRun = new ScriptedCloudRun(['denied']);
    await expect(run(cloudRun)).rejects.toBeInstanceOf(PermanentError);
    expect(cloudRun.calls).toEqual(['RunJob']);
  });
});
