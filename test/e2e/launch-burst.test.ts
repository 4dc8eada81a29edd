import { PubSub } from '@google-cloud/pubsub';
import { reconcileEvent } from '../../emulators/pullsecret/sentinel/sentinel';
import type { AdapterStatus } from '../../shared/hyperfleet/schemas';
import { canaryPullSecret } from '../helpers/canary';
import { publishCopies } from '../helpers/events';
import { startTestStack, type TestStack } from '../helpers/stack';

// Issue 28 §1, issue 37: duplicates of one Sentinel event that reach several adapter instances at
// once launch ONE execution per (cluster, generation, operation), with no settle wait: every copy
// names the same Cloud Tasks task, and all but one get ALREADY_EXISTS. 20 copies of the event are published at once
// (the round-robin proxy gives each instance its share: 10 + 10 with two instances), for 20
// clusters (the rounds) at a time, through create, update and delete. Sentinel is silenced so the
// burst is the only trigger, published only once the preconditions hold, so every copy decides
// to launch. Executions per generation are logged for the job protocol's invariants (docs/design/job-protocol.md).
const ROUNDS = 20;
const COPIES = 20;
const PRECONDITION_ADAPTERS = ['validation', 'dns', 'placement'];

const available = (statuses: readonly AdapterStatus[], adapter: string, generation: number) =>
  statuses.some(
    (s) =>
      s.adapter === adapter &&
      s.observed_generation === generation &&
      s.conditions.some((c) => c.type === 'Available' && c.status === 'True'),
  );

describe.each([2, 3])(
  'end to end: a burst of %i-instance duplicates launches once per generation',
  (instances) => {
    let stack: TestStack;
    let pubsub: PubSub;
    let ids: string[] = [];

    beforeAll(async () => {
      stack = await startTestStack({
        adapterInstances: instances,
        // Silenced: the test's bursts are the only events (Sentinel would otherwise start each launch).
        sentinel: { pollInterval: '1h', notReadyInterval: '1h', readyInterval: '1h' },
      });
      pubsub = new PubSub({
        projectId: stack.d.project,
        apiEndpoint: stack.d.endpoints.pubsub,
        emulatorMode: true,
      });
    }, 90_000);
    afterAll(async () => {
      await pubsub?.close();
      await stack?.stop();
    }, 30_000);

    const burst = (id: string, generation: number) =>
      publishCopies(pubsub, reconcileEvent({ id, generation }), COPIES);
    const preconditionsHold = (id: string, generation: number) =>
      stack.waitFor(
        `${id}: ${PRECONDITION_ADAPTERS.join(', ')} Available at generation ${generation}`,
        async () => {
          const statuses = await stack.api.listStatuses(id);
          return PRECONDITION_ADAPTERS.every((a) => available(statuses, a, generation));
        },
        60_000,
      );
    const allExecutionsEnded = () =>
      stack.waitFor(
        'every execution to end',
        async () => (await stack.executions()).every((e) => e.done),
        60_000,
      );
    /** Executions per cluster for one generation and operation, logged, and the rounds with exactly one. */
    const perRound = async (operation: string, generation: number) => {
      const all = await stack.executions();
      const counts = ids.map(
        (id) =>
          all.filter(
            (e) =>
              e.env.CLUSTER_ID === id &&
              e.env.OPERATION === operation &&
              e.env.GENERATION === String(generation),
          ).length,
      );
      const once = counts.filter((n) => n === 1).length;
      console.log(
        `launch burst, ${instances} instances, ${operation} generation ${generation}: ${once} of ${ROUNDS} rounds launched exactly once (executions per round: ${counts.join(' ')}; ${COPIES} copies each)`,
      );
      return counts;
    };

    it(`create: 1 execution for generation 1 in ${ROUNDS} of ${ROUNDS} rounds`, async () => {
      ids = await Promise.all(
        Array.from({ length: ROUNDS }, (_, i) =>
          stack.createCluster(
            `burst-${instances}-${i}`,
            canaryPullSecret(`burst-${instances}-${i}`).text,
          ),
        ),
      );
      await Promise.all(ids.map((id) => preconditionsHold(id, 1)));
      await Promise.all(ids.map((id) => burst(id, 1)));
      await Promise.all(ids.map((id) => stack.converged(id, 1, 90_000)));
      await allExecutionsEnded();
      expect(await perRound('apply', 1)).toEqual(Array<number>(ROUNDS).fill(1));
    }, 240_000);

    it(`update: 1 execution for generation 2 in ${ROUNDS} of ${ROUNDS} rounds`, async () => {
      await Promise.all(
        ids.map((id, i) =>
          stack.api.patchCluster(id, {
            spec: { pullSecret: { data: canaryPullSecret(`burst-${instances}-${i}-v2`).text } },
          }),
        ),
      );
      await Promise.all(ids.map((id) => preconditionsHold(id, 2)));
      await Promise.all(ids.map((id) => burst(id, 2)));
      await Promise.all(ids.map((id) => stack.converged(id, 2, 90_000)));
      await allExecutionsEnded();
      expect(await perRound('apply', 2)).toEqual(Array<number>(ROUNDS).fill(1));
    }, 240_000);

    it(`delete: 1 execution for generation 3 in ${ROUNDS} of ${ROUNDS} rounds`, async () => {
      await Promise.all(ids.map((id) => stack.api.deleteCluster(id)));
      await Promise.all(ids.map((id) => burst(id, 3)));
      await Promise.all(
        ids.map((id) =>
          stack.waitFor(
            `cluster ${id} hard-deleted`,
            async () => (await stack.cluster(id)) === undefined,
            90_000,
          ),
        ),
      );
      await allExecutionsEnded();
      expect(await perRound('delete', 3)).toEqual(Array<number>(ROUNDS).fill(1));
    }, 240_000);
  },
);
