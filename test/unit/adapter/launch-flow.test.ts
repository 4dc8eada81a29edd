import type { DecisionSettings } from '../../../functions/adapter/decision/decision';
import type { AdapterDependencies } from '../../../functions/adapter/flows/dependencies';
import { launchThroughQueue } from '../../../functions/adapter/flows/launch-flow';
import { StatusWriter } from '../../../functions/adapter/flows/report-status';
import type { LaunchRequest } from '../../../shared/launch/execution-env';
import type {
  EnqueueResult,
  LaunchQueue,
  QueuedTask,
} from '../../../functions/adapter/launch-queue/launch-queue';
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
const QUEUE = 'projects/p/locations/l/queues/pullsecret-launches';
const cluster: Cluster = { id: 'cls-1', name: 'prod', generation: 3, spec: {} };

/** The HyperFleet API as the flow sees it: PUTs recorded. */
class RecordingHyperFleet implements HyperFleetApi {
  readonly puts: AdapterStatusRequest[] = [];
  listed = 0;
  constructor(private readonly stored: AdapterStatus[] = []) {}
  async findCluster(): Promise<Cluster> {
    return cluster;
  }
  async listStatuses(): Promise<AdapterStatus[]> {
    this.listed++;
    return this.stored;
  }
  async putStatus(_id: string, body: AdapterStatusRequest): Promise<PutStatusOutcome> {
    this.puts.push(body);
    return 'stored';
  }
}

/** A queue that records what was enqueued and answers as scripted. */
class ScriptedQueue implements LaunchQueue {
  readonly enqueued: { task: string; request: LaunchRequest }[] = [];
  constructor(
    private readonly answer: EnqueueResult | Error = 'queued',
    /** Queues that refuse every task (as Cloud Tasks answers a queue that is not there). */
    private readonly missing: Readonly<Record<string, Error>> = {},
  ) {}
  enqueueBatch(): Promise<EnqueueResult> {
    throw new Error('no batch launches in this test');
  }
  async enqueue(task: string, request: LaunchRequest): Promise<EnqueueResult> {
    this.enqueued.push({ task, request });
    const refusal = this.missing[task.slice(0, task.lastIndexOf('/tasks/'))];
    if (refusal) throw refusal;
    if (this.answer instanceof Error) throw this.answer;
    return this.answer;
  }
  async inspect(): Promise<QueuedTask | undefined> {
    return undefined;
  }
  async cancel(): Promise<void> {}
}

const run = async (
  queue: ScriptedQueue,
  options: {
    lastReportTime?: string;
    attempt?: number;
    now?: () => Date;
    stored?: AdapterStatus[];
    managementCluster?: string;
  } = {},
) => {
  const hyperfleet = new RecordingHyperFleet(options.stored);
  const logger = new RecordingLogger();
  const deps: AdapterDependencies = {
    hyperfleet,
    launchQueue: {
      queue,
      name: QUEUE,
      perManagementCluster: true,
      jobName: 'projects/p/locations/l/jobs/j',
    },
    lookup: { read: async () => undefined },
    preconditions: [],
    settings: {} as DecisionSettings,
    pullSecret: {
      specPath: 'spec.pullSecret.data',
      additionalSpecPath: 'spec.pullSecret.additional',
    },
    logger,
  };
  const now = options.now ?? (() => AT);
  const writer = new StatusWriter(hyperfleet, logger, cluster.id, 3, options.lastReportTime, now);
  await launchThroughQueue(
    {
      kind: 'launch',
      operation: 'apply',
      reason: 'first-event',
      attempt: options.attempt ?? 1,
      namespace: 'clusters-cls-1',
      gcpProjectId: 'p',
      message: 'launch',
      ...(options.managementCluster ? { managementCluster: options.managementCluster } : {}),
    },
    cluster,
    deps,
    logger,
    writer,
  );
  return { hyperfleet, logger };
};
const available = (put: AdapterStatusRequest | undefined) =>
  put?.conditions.find((c) => c.type === 'Available');

describe('launchThroughQueue', () => {
  it('queues one named task and records it as JobQueued', async () => {
    const queue = new ScriptedQueue();
    const { hyperfleet } = await run(queue);
    expect(queue.enqueued).toHaveLength(1);
    const { task, request } = queue.enqueued[0]!;
    expect(task).toMatch(new RegExp(`^${QUEUE}/tasks/[0-9a-f]{8}-cls-1-g3-apply-a1$`));
    expect(request).toMatchObject({ clusterId: 'cls-1', generation: 3, attempt: 1 });
    expect(task.endsWith(`/${request.launchId}`)).toBe(true);
    expect(hyperfleet.puts).toHaveLength(1);
    expect(available(hyperfleet.puts[0])).toMatchObject({ status: 'False', reason: 'JobQueued' });
    expect(hyperfleet.puts[0]?.data).toMatchObject({ task, attempt: 1, operation: 'apply' });
  });

  it("a placed cluster's launch goes to its management cluster's queue; one without a queue to the fleet's", async () => {
    const placed = new ScriptedQueue();
    await run(placed, { managementCluster: 'mgmt-1' });
    expect(placed.enqueued.map((e) => e.task.split('/tasks/')[0])).toEqual([`${QUEUE}-mgmt-1`]);
    for (const answer of [
      new PermanentError('no such queue', 'NotFound'),
      new PermanentError('no grant on a queue that is not there', 'PermissionDenied'),
    ]) {
      const unknown = new ScriptedQueue('queued', { [`${QUEUE}-mgmt-9`]: answer });
      const { hyperfleet, logger } = await run(unknown, { managementCluster: 'mgmt-9' });
      expect(unknown.enqueued.map((e) => e.task.split('/tasks/')[0])).toEqual([
        `${QUEUE}-mgmt-9`,
        QUEUE,
      ]);
      expect(hyperfleet.puts[0]?.data).toMatchObject({ task: unknown.enqueued[1]!.task });
      expect(logger.lines.some((l) => l.fields.decision === 'launch-fleet-queue')).toBe(true);
    }
  });

  it('names the same task for the same decision, another for the next attempt', async () => {
    const a = new ScriptedQueue();
    const b = new ScriptedQueue('already-queued');
    await run(a);
    const { hyperfleet } = await run(b);
    expect(b.enqueued[0]?.task).toBe(a.enqueued[0]?.task);
    // ALREADY_EXISTS is "launched already": recorded the same way, never launched twice.
    expect(available(hyperfleet.puts[0])?.reason).toBe('JobQueued');
    const c = new ScriptedQueue();
    await run(c, { attempt: 2 });
    expect(c.enqueued[0]?.task).not.toBe(a.enqueued[0]?.task);
  });

  it('ALREADY_EXISTS records nothing over a status that already records this attempt (a stale decision never rolls back a newer report)', async () => {
    const own = (generation: number, attempt: number | undefined, reason: string) => ({
      adapter: 'pullsecret',
      observed_generation: generation,
      conditions: [{ type: 'Available', status: 'True' as const, reason }],
      data: attempt === undefined ? {} : { attempt },
    });
    // The execution started and succeeded between this decision's read and its CreateTask.
    for (const stored of [own(3, 1, 'PullSecretProvisioned'), own(4, undefined, 'JobQueued')]) {
      const { hyperfleet, logger } = await run(new ScriptedQueue('already-queued'), {
        stored: [stored],
      });
      expect(hyperfleet.listed).toBe(1);
      expect(hyperfleet.puts).toEqual([]);
      expect(logger.lines.some((l) => l.fields.decision === 'launch-already-recorded')).toBe(true);
    }
    // The creator's write was lost (or an older attempt is on record): recorded here.
    for (const stored of [[], [own(3, undefined, 'PreconditionsNotMet')]]) {
      const { hyperfleet } = await run(new ScriptedQueue('already-queued'), { stored });
      expect(available(hyperfleet.puts[0])?.reason).toBe('JobQueued');
    }
    const next = await run(new ScriptedQueue('already-queued'), {
      attempt: 2,
      stored: [own(3, 1, 'JobFailed')],
    });
    expect(available(next.hyperfleet.puts[0])?.reason).toBe('JobQueued');
    // The creator reads nothing again: no execution can report before its task exists.
    const creator = await run(new ScriptedQueue('queued'), { stored: [own(3, 1, 'JobQueued')] });
    expect(creator.hyperfleet.listed).toBe(0);
    expect(creator.hyperfleet.puts).toHaveLength(1);
  });

  it('writes strictly after the stored report, even when the clock has not passed it', async () => {
    const { hyperfleet } = await run(new ScriptedQueue(), {
      lastReportTime: AT.toISOString(),
    });
    expect(Date.parse(hyperfleet.puts[0]!.observed_time)).toBe(AT.getTime() + 1);
    expect(hyperfleet.puts[0]?.data).toMatchObject({ launched_at: '2026-11-22T12:00:00.001Z' });
  });

  it('reports a permanent CreateTask refusal with its attempt, and throws a transient one', async () => {
    const refused = new PermanentError(
      'Cloud Tasks CreateTask failed: PERMISSION_DENIED',
      'PermissionDenied',
    );
    const { hyperfleet } = await run(new ScriptedQueue(refused), { attempt: 2 });
    expect(hyperfleet.puts[0]?.conditions.find((c) => c.type === 'Health')).toMatchObject({
      status: 'False',
      reason: 'PermissionDenied',
    });
    expect(hyperfleet.puts[0]?.data).toMatchObject({ failure_kind: 'permanent', attempt: 2 });
    await expect(
      run(new ScriptedQueue(new TransientError('UNAVAILABLE', 'CloudTasksUnavailable'))),
    ).rejects.toThrow('UNAVAILABLE');
  });
});
