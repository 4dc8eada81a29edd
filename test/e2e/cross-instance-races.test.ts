import fs from 'node:fs';
import { PubSub } from '@google-cloud/pubsub';
import { reconcileEvent } from '../../emulators/pullsecret/sentinel/sentinel';
import type { ProxyRecord } from '../../emulators/pullsecret/stack/round-robin-proxy';
import type { OwnStatus } from '../../shared/status/own-status';
import { canaryPullSecret } from '../helpers/canary';
import { publishCopies } from '../helpers/events';
import { leftAfterDelete } from '../helpers/secret-manager';
import { CUSTOMER_PROJECT, startTestStack, type TestStack } from '../helpers/stack';

// The same Sentinel event published this many times at once: the round-robin proxy spreads the
// copies over the adapter instances, whose in-process mutexes cannot see each other.
const COPIES = 8;

/**
 * Cross-instance races on the local stack (two adapter instances behind the proxy). Only the
 * effects are asserted: one Secret Manager version and one Kubernetes write per real change, and
 * statuses that never move backwards. How many executions were launched is logged, not asserted:
 * it measures how much the adapter's launch de-duplication catches before the job's own claim.
 */
describe('end to end on the local stack: the same event on several adapter instances at once', () => {
  let stack: TestStack;
  let pubsub: PubSub;
  const history: { at: number; own: OwnStatus | undefined }[] = [];
  let watching = true;
  let watcher: Promise<void>;
  let id: string;

  beforeAll(async () => {
    stack = await startTestStack({ adapterInstances: 2 });
    pubsub = new PubSub({
      projectId: stack.d.project,
      apiEndpoint: stack.d.endpoints.pubsub,
      emulatorMode: true,
    });
  }, 60_000);
  afterAll(async () => {
    watching = false;
    await watcher;
    await pubsub?.close();
    await stack?.stop();
  }, 30_000);

  /** Records every distinct status the API holds for the cluster, as often as it can. */
  const watch = (clusterId: string) => {
    watcher = (async () => {
      while (watching) {
        const own = await stack.own(clusterId).catch(() => undefined);
        const last = history[history.length - 1]?.own;
        if (JSON.stringify(own) !== JSON.stringify(last)) history.push({ at: Date.now(), own });
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
  };
  const publishBurst = (generation: number) =>
    publishCopies(pubsub, reconcileEvent({ id, generation }), COPIES);
  const executions = async (operation: string, generation: number) =>
    (await stack.executionsFor(id)).filter(
      (e) => e.env.OPERATION === operation && e.env.GENERATION === String(generation),
    );
  const smCalls = async (method: string) =>
    (await stack.requests('secret-manager')).filter(
      (r) => r.method === method && r.target.includes(`hyperfleet-${id}-pull-secret`),
    );
  const logExecutions = async (what: string, operation: string, generation: number) => {
    const launched = await executions(operation, generation);
    // Not asserted (see above): the number to compare before and after launch de-duplication.
    console.log(
      `cross-instance race, ${what}: ${launched.length} execution(s) launched for ${COPIES} copies of the event (attempts ${launched.map((e) => e.env.LAUNCH_ATTEMPT).join(', ')})`,
    );
  };
  /** Waits until every execution launched for the cluster has finished (losers included). */
  const allDone = () =>
    stack.waitFor('every execution of the cluster to finish', async () =>
      (await stack.executionsFor(id)).every((e) => e.done),
    );

  it('create: one Secret Manager version and one Kubernetes write', async () => {
    id = await stack.createCluster('race-create', canaryPullSecret('race-create').text);
    watch(id);
    await publishBurst(1);
    await stack.converged(id, 1, 45_000);
    await allDone();
    await logExecutions('create', 'apply', 1);
    expect(await stack.versions(id)).toEqual(['1:ENABLED']);
    expect((await smCalls('AddSecretVersion')).filter((r) => r.outcome === 'OK')).toHaveLength(1);
    expect((await stack.kubeWrites(id)).map((w) => w.method)).toHaveLength(1);
  }, 90_000);

  it('update: exactly one more version and one more Kubernetes write', async () => {
    await stack.api.patchCluster(id, {
      spec: { pullSecret: { data: canaryPullSecret('race-update').text } },
    });
    await publishBurst(2);
    await stack.converged(id, 2, 45_000);
    await allDone();
    await logExecutions('update', 'apply', 2);
    expect(await stack.versions(id)).toEqual(['2:ENABLED', '1:DESTROYED']);
    expect((await smCalls('AddSecretVersion')).filter((r) => r.outcome === 'OK')).toHaveLength(2);
    expect((await stack.kubeWrites(id)).map((w) => w.method)).toHaveLength(2);
  }, 90_000);

  it('delete: the pull secret removed once (a tombstone left), Finalized, the cluster hard-deleted', async () => {
    await stack.api.deleteCluster(id);
    await publishBurst(3);
    await stack.waitFor(
      `cluster ${id} hard-deleted`,
      async () => (await stack.cluster(id)) === undefined,
      45_000,
    );
    await allDone();
    await logExecutions('delete', 'delete', 3);
    // The secret stays as the delete's tombstone (its one live version destroyed once), never deleted.
    expect(
      await leftAfterDelete(
        stack.sm,
        `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
      ),
    ).toBe('tombstone');
    expect(
      (await smCalls('DestroySecretVersion')).filter(
        (r) => r.outcome === 'OK' && r.target.endsWith('/versions/2'),
      ),
    ).toHaveLength(1);
    expect(await smCalls('DeleteSecret')).toEqual([]);
    expect((await stack.kubeWrites(id)).map((w) => `${w.method} ${w.outcome}`)).toHaveLength(3);
  }, 90_000);

  it('the status never moved backwards: generations only grew, and no report undid a success', () => {
    const seen = history.flatMap((h) => (h.own ? [h.own] : []));
    expect(seen.length).toBeGreaterThan(3);
    const problems: string[] = [];
    seen.forEach((own, i) => {
      const before = seen.slice(0, i);
      const previous = before[before.length - 1];
      if (previous && own.observedGeneration < previous.observedGeneration)
        problems.push(`generation ${previous.observedGeneration} -> ${own.observedGeneration}`);
      const sameGeneration = before.filter((b) => b.observedGeneration === own.observedGeneration);
      if (sameGeneration.some((b) => b.available === 'True') && own.available !== 'True')
        problems.push(
          `generation ${own.observedGeneration}: Available=True, then ${own.availableReason ?? '?'}`,
        );
      if (sameGeneration.some((b) => b.finalized === 'True') && own.finalized !== 'True')
        problems.push(`generation ${own.observedGeneration}: Finalized=True, then not`);
      if (
        previous?.observedGeneration === own.observedGeneration &&
        previous.lastReportTime &&
        own.lastReportTime &&
        Date.parse(own.lastReportTime) < Date.parse(previous.lastReportTime)
      )
        problems.push(`generation ${own.observedGeneration}: an older report replaced a newer one`);
    });
    expect(problems).toEqual([]);
  });

  it('both adapter instances handled events (their own log files), through the proxy', () => {
    const instances = stack.d.adapters.instances;
    expect(instances).toHaveLength(2);
    for (const instance of instances) {
      const decisions = fs
        .readFileSync(instance.logFile, 'utf8')
        .split('\n')
        .filter((line) => line.includes(`"cluster_id":"${id}"`) && line.includes('"decision"'));
      expect({ instance: instance.name, handled: decisions.length > 0 }).toEqual({
        instance: instance.name,
        handled: true,
      });
    }
    const proxied = fs
      .readFileSync(stack.d.adapters.proxy.logFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ProxyRecord);
    expect(new Set(proxied.map((r) => r.instance))).toEqual(new Set(instances.map((i) => i.name)));
    // Sentinel's events, and the fleet-requests topic's (Secret Manager's notifications).
    expect(
      proxied.every((r) =>
        /\/topics\/(hyperfleet-system-clusters|pullsecret-fleet-requests)$/.test(r.path),
      ),
    ).toBe(true);
  });
});
