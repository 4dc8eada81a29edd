import type { DecisionSettings } from '../../../functions/adapter/decision/decision';
import type { ExecutionLookup } from '../../../functions/adapter/cloud-run/execution-lookup';
import type { AdapterDependencies } from '../../../functions/adapter/flows/dependencies';
import type {
  JobLauncher,
  LaunchedExecution,
} from '../../../functions/adapter/cloud-run/execution-env';
import { launchWithIntent } from '../../../functions/adapter/flows/launch-flow';
import { PermanentError, TransientError } from '../../../shared/errors';
import type { PutStatusOutcome } from '../../../shared/hyperfleet/client';
import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import type {
  AdapterStatus,
  AdapterStatusRequest,
  Cluster,
} from '../../../shared/hyperfleet/schemas';
import { RecordingLogger } from '../../helpers/recording-logger';

const AT = new Date('2026-11-22T12:00:00.000Z');
const cluster: Cluster = { id: 'cls-1', name: 'prod', generation: 3, spec: {} };

/** The HyperFleet API as the flow sees it: PUTs recorded, the stored status scripted. */
class FakeHyperFleet implements HyperFleetApi {
  readonly puts: AdapterStatusRequest[] = [];
  constructor(
    private readonly answer: PutStatusOutcome,
    private readonly storedLaunchId: (written: string | undefined) => string | undefined,
  ) {}
  async findCluster(): Promise<Cluster> {
    return cluster;
  }
  async listStatuses(): Promise<AdapterStatus[]> {
    const written = this.puts[this.puts.length - 1]?.data?.launch_id as string | undefined;
    const launchId = this.storedLaunchId(written);
    return [
      {
        adapter: 'pullsecret',
        observed_generation: 3,
        conditions: [{ type: 'Available', status: 'False', reason: 'JobLaunching' }],
        data: { launch_id: launchId, operation: 'apply', attempt: 1 },
      },
    ];
  }
  async putStatus(_id: string, body: AdapterStatusRequest): Promise<PutStatusOutcome> {
    this.puts.push(body);
    return this.answer;
  }
}

class FakeCloudRun implements JobLauncher, ExecutionLookup {
  readonly calls: string[] = [];
  constructor(private readonly failure?: Error) {}
  async launch(): Promise<LaunchedExecution> {
    this.calls.push('RunJob');
    if (this.failure) throw this.failure;
    return { execution: 'e-1' };
  }
  async findLaunched(): Promise<undefined> {
    this.calls.push('ListExecutions');
    return undefined;
  }
  async read(): Promise<undefined> {
    return undefined;
  }
}

const run = (
  hyperfleet: FakeHyperFleet,
  cloudRun: FakeCloudRun,
  settle: Pick<AdapterDependencies, 'launchSettleMs' | 'sleep'> = {},
) => {
  const deps: AdapterDependencies = {
    ...settle,
    hyperfleet,
    launcher: cloudRun,
    lookup: cloudRun,
    launchRetry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    preconditions: [],
    settings: {} as DecisionSettings,
    pullSecret: {
      specPath: 'spec.pullSecret.data',
      additionalSpecPath: 'spec.pullSecret.additional',
    },
    logger: new RecordingLogger(),
    newLaunchId: () => 'launch-mine',
  };
  return launchWithIntent(
    {
      kind: 'launch',
      operation: 'apply',
      reason: 'first-event',
      attempt: 1,
      namespace: 'clusters-cls-1',
      gcpProjectId: 'p',
      message: 'launch',
    },
    cluster,
    deps,
    new RecordingLogger(),
    AT,
  );
};
const reasons = (hyperfleet: FakeHyperFleet) =>
  hyperfleet.puts.map((p) => p.conditions.find((c) => c.type === 'Available')?.reason);

describe('launchWithIntent', () => {
  it('records the intent, then launches once, then records the execution (same observed_time)', async () => {
    const hyperfleet = new FakeHyperFleet('stored', (written) => written);
    const cloudRun = new FakeCloudRun();
    await run(hyperfleet, cloudRun);
    expect(cloudRun.calls).toEqual(['RunJob']);
    expect(reasons(hyperfleet)).toEqual(['JobLaunching', 'JobRunning']);
    expect(hyperfleet.puts.map((p) => p.observed_time)).toEqual([
      AT.toISOString(),
      AT.toISOString(),
    ]);
    expect(hyperfleet.puts[1]?.data).toMatchObject({ execution: 'e-1', launch_id: 'launch-mine' });
  });

  it('does not launch when the API discarded the intent (a newer report exists)', async () => {
    const hyperfleet = new FakeHyperFleet('discarded', () => undefined);
    const cloudRun = new FakeCloudRun();
    await run(hyperfleet, cloudRun);
    expect(cloudRun.calls).toEqual([]);
    expect(hyperfleet.puts).toHaveLength(1);
  });

  it("yields when another instance's intent replaced ours", async () => {
    const hyperfleet = new FakeHyperFleet('stored', () => 'launch-of-another-instance');
    const cloudRun = new FakeCloudRun();
    await run(hyperfleet, cloudRun);
    expect(cloudRun.calls).toEqual([]);
    expect(reasons(hyperfleet)).toEqual(['JobLaunching']);
  });

  it('waits the settle interval between writing the intent and reading it back, and yields to an intent written meanwhile', async () => {
    // Another instance's intent lands while ours settles: the stored launch id becomes theirs.
    let settled = false;
    const hyperfleet = new FakeHyperFleet('stored', (written) =>
      settled ? 'launch-of-another-instance' : written,
    );
    const cloudRun = new FakeCloudRun();
    const waits: number[] = [];
    await run(hyperfleet, cloudRun, {
      launchSettleMs: 1000,
      sleep: async (ms) => {
        waits.push(ms);
        expect(hyperfleet.puts).toHaveLength(1); // the intent is written before the wait
        settled = true;
      },
    });
    expect(waits).toEqual([1000]);
    expect(cloudRun.calls).toEqual([]);
    expect(reasons(hyperfleet)).toEqual(['JobLaunching']);
  });

  it('launches after the settle interval when its intent is still the stored one', async () => {
    const hyperfleet = new FakeHyperFleet('stored', (written) => written);
    const cloudRun = new FakeCloudRun();
    const waits: number[] = [];
    await run(hyperfleet, cloudRun, {
      launchSettleMs: 250,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(waits).toEqual([250]);
    expect(cloudRun.calls).toEqual(['RunJob']);
  });

  it('does not wait when the intent was discarded, nor when the settle interval is 0', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    await run(new FakeHyperFleet('discarded', () => undefined), new FakeCloudRun(), {
      launchSettleMs: 1000,
      sleep,
    });
    await run(new FakeHyperFleet('stored', (written) => written), new FakeCloudRun(), {
      launchSettleMs: 0,
      sleep,
    });
    expect(waits).toEqual([]);
  });

  it('a transient failure with no execution found marks the intent abandoned and is rethrown', async () => {
    const hyperfleet = new FakeHyperFleet('stored', (written) => written);
    const cloudRun = new FakeCloudRun(new TransientError('Cloud Run down', 'CloudRunUnavailable'));
    await expect(run(hyperfleet, cloudRun)).rejects.toBeInstanceOf(TransientError);
    expect(cloudRun.calls).toEqual(['RunJob', 'ListExecutions']);
    expect(reasons(hyperfleet)).toEqual(['JobLaunching', 'CloudRunUnavailable']);
    expect(hyperfleet.puts[1]?.data).toMatchObject({
      launch_id: 'launch-mine',
      launch_abandoned: true,
    });
  });

  it('a permanent failure is reported (launch-failed) and not rethrown', async () => {
    const hyperfleet = new FakeHyperFleet('stored', (written) => written);
    const cloudRun = new FakeCloudRun(new PermanentError('denied', 'PermissionDenied'));
    await run(hyperfleet, cloudRun);
    expect(reasons(hyperfleet)).toEqual(['JobLaunching', 'PermissionDenied']);
  });
});
