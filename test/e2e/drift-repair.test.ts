import type { AdapterStatus } from '../../shared/hyperfleet/schemas';
import { localHyperFleetClient } from '../../emulators/pullsecret/hyperfleet/local-hyperfleet-client';
import { HYPERSHIFT_ADAPTER } from '../../emulators/pullsecret/hypershift/report';
import { canaryPullSecret } from '../helpers/canary';
import { RecordingLogger } from '../helpers/recording-logger';
import { startTestStack, type TestStack } from '../helpers/stack';

/** The back-off window of drift repairs in this file (DRIFT_REPAIR_BACKOFF). */
const WINDOW_MS = 8_000;

/** A launch the adapter logged, with its reason and when (Cloud Logging's JSON, one a line). */
interface LaunchLine {
  readonly timestamp: { readonly seconds: number; readonly nanos: number };
  readonly metadata: {
    readonly cluster_id?: string;
    readonly launch_reason?: string;
    readonly execution?: string;
  };
}

// Issue 31, Done when: a cluster's Secret deleted on its management cluster is reported by the
// HyperShift simulator (PullSecretNotFound), and the adapter repairs it at once (launch reason
// drift-reported), with no resync: RESYNC_INTERVAL is a day here, far longer than the test.
describe('end to end on the local stack: drift repaired when it is reported', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startTestStack({
      adapterEnv: {
        RESYNC_INTERVAL: '24h',
        RESYNC_SPREAD: '0s',
        DRIFT_REPAIR_BACKOFF: `${WINDOW_MS}ms`,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  /** Every launch the adapter instances logged for the cluster ("Launched execution ..."). */
  const launches = (id: string) =>
    stack
      .logText()
      .split('\n')
      .filter((line) => line.includes(`"cluster_id":"${id}"`) && line.includes('"launch_reason"'))
      .map((line) => JSON.parse(line) as LaunchLine)
      .map((l) => ({
        reason: l.metadata.launch_reason,
        at: l.timestamp.seconds * 1000 + l.timestamp.nanos / 1e6,
      }));
  const hypershiftAvailable = async (id: string) =>
    (await stack.api.listStatuses(id))
      .find((s) => s.adapter === HYPERSHIFT_ADAPTER)
      ?.conditions.find((c) => c.type === 'Available');
  /** Waits until our last report is older than the window, so a drift is repaired at once. */
  const pastWindow = async (id: string) =>
    stack.waitFor('our last report to be older than DRIFT_REPAIR_BACKOFF', async () => {
      const own = await stack.own(id);
      return Date.now() - Date.parse(own?.lastReportTime ?? '') > WINDOW_MS + 500;
    });

  it('repairs a deleted Secret once, as soon as HyperShift reports PullSecretNotFound', async () => {
    const id = await stack.createCluster('drift-deleted', canaryPullSecret('drift-deleted').text);
    await stack.ready(id, 60_000);
    const before = await stack.secretOf(id);
    expect(before).toBeDefined();
    const executionsBefore = (await stack.workingExecutionsFor(id)).length;
    await pastWindow(id);

    const deletedAt = Date.now();
    // On the management cluster placement chose (the stack has two).
    const place = (await stack.placeOf(id))!;
    const answer = await stack.kubes
      .get(place.managementCluster)!
      .request('DELETE', `/api/v1/namespaces/${place.namespace}/secrets/${id}-pull-secret`);
    expect(answer.status).toBe(200);
    const reported = await stack.waitFor('HyperShift to report PullSecretNotFound', async () => {
      const available = await hypershiftAvailable(id);
      return available?.status === 'False' && available.reason === 'PullSecretNotFound'
        ? Date.now()
        : undefined;
    });
    const restored = await stack.waitFor('the Secret to be back', async () =>
      (await stack.secretOf(id)) ? Date.now() : undefined,
    );
    await stack.ready(id, 30_000);
    const green = Date.now();
    expect((await hypershiftAvailable(id))?.reason).toBe('PullSecretValid');

    // One repair, for the drift, and never a resync; the same pull secret is back.
    const after = await stack.workingExecutionsFor(id);
    expect(after.length).toBe(executionsBefore + 1);
    const reasons = launches(id).map((l) => l.reason);
    expect(reasons.filter((r) => r === 'drift-reported').length).toBeGreaterThanOrEqual(1);
    expect(reasons).not.toContain('resync');
    const data = (s: Record<string, unknown> | undefined) =>
      (s?.data as Record<string, string>)['.dockerconfigjson'];
    expect(data(await stack.secretOf(id))).toBe(data(before));
    // Sentinel re-sent the not-reconciled cluster every second meanwhile: those events were decided
    // without launching again (in flight, then up to date once HyperShift saw the Secret).
    process.stdout.write(
      `drift repair: deleted -> PullSecretNotFound ${reported - deletedAt} ms, -> Secret back ${restored - deletedAt} ms, -> Reconciled ${green - deletedAt} ms\n`,
    );
  }, 120_000);

  it('repairs at most once per window while a stale report persists under repeated events', async () => {
    const id = await stack.createCluster('drift-stale', canaryPullSecret('drift-stale').text);
    await stack.ready(id, 60_000);
    await pastWindow(id);
    const d = stack.d;
    // Acting as the HyperShift adapter whose report lags: PullSecretNotFound although the Secret
    // is there. The simulator sends a report only when its content changes, so this one stays.
    const hypershift = localHyperFleetClient(d.endpoints.hyperfleetApi, new RecordingLogger(), {
      ...(d.env.HYPERFLEET_API_AUTH_TOKEN_PATH
        ? { tokenFile: d.env.HYPERFLEET_API_AUTH_TOKEN_PATH }
        : {}),
      userAgent: 'test-hypershift',
    });
    const current = (await stack.api.listStatuses(id)).find(
      (s) => s.adapter === HYPERSHIFT_ADAPTER,
    )!;
    const report = (conditions: AdapterStatus['conditions']) =>
      hypershift.putStatus(id, {
        adapter: HYPERSHIFT_ADAPTER,
        observed_generation: current.observed_generation,
        observed_time: new Date().toISOString(),
        conditions: conditions.map(({ type, status, reason, message }) => ({
          type,
          status,
          reason: reason ?? 'Reported',
          message: message ?? 'reported',
        })),
        ...(current.data ? { data: current.data } : {}),
      });
    const stale = current.conditions.map((c) =>
      c.type === 'Available'
        ? { ...c, status: 'False' as const, reason: 'PullSecretNotFound', message: 'stale' }
        : c,
    );
    const start = Date.now();
    const drift = () => launches(id).filter((l) => l.reason === 'drift-reported' && l.at >= start);
    await report(stale);
    // One repair at once (our last run is older than the window) ...
    const first = await stack.waitFor('the first drift repair', async () => drift()[0]);
    await stack.waitFor('the repair to succeed', async () => {
      const own = await stack.own(id);
      return own?.available === 'True' && Date.parse(own.lastReportTime ?? '') > first.at;
    });
    const repairedAt = Date.parse((await stack.own(id))!.lastReportTime!);
    // ... then none while the report stays, for the window after that repair, although Sentinel
    // re-sends the (not reconciled) cluster every second.
    // (Two instances taking one event at once may each launch; the job's claim makes one of them a
    // duplicate that writes nothing. What the window bounds is the next round.)
    const after = (at: number) => drift().filter((l) => l.at > at);
    while (Date.now() < repairedAt + WINDOW_MS - 1_000) {
      expect(after(repairedAt)).toEqual([]);
      await new Promise((r) => setTimeout(r, 250));
    }
    const backoffs = (
      stack
        .logText()
        .match(new RegExp(`"cluster_id":"${id}"[^\\n]*"decision":"drift-repair-backoff"`, 'g')) ??
      []
    ).length;
    expect(backoffs).toBeGreaterThanOrEqual(3);
    // The window over, the report still there: one more repair (the backstop), not a burst.
    const second = await stack.waitFor('the next drift repair', async () => after(repairedAt)[0]);
    expect(second.at - repairedAt).toBeGreaterThanOrEqual(WINDOW_MS - 1_000);
    // HyperShift checks again and finds the Secret: no more repairs.
    await report(current.conditions);
    await stack.ready(id, 30_000);
    const settled = Date.now();
    await new Promise((r) => setTimeout(r, WINDOW_MS + 2_000));
    expect(after(settled)).toEqual([]);
    process.stdout.write(
      `stale report: repairs at +${first.at - start} ms and +${second.at - start} ms (window ${WINDOW_MS} ms), ${backoffs} events backed off\n`,
    );
  }, 120_000);
});
