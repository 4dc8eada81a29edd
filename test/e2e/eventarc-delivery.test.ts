// The lifecycle with LOCAL_DELIVERY=eventarc: every Pub/Sub message reaches the adapter and the
// reporter as Eventarc delivers it (binary-mode CloudEvent, `ce-*` headers, the Pub/Sub message in
// the body, no deliveryAttempt), the way `delivery.mode = "eventarc"` wires them in GCP. The same
// effects as with push subscriptions must follow: one version and one Kubernetes write per change,
// convergence, a redelivery after a failure, and the hard delete.
import fs from 'node:fs';
import { PubSub } from '@google-cloud/pubsub';
import type { ProxyRecord } from '../../emulators/pullsecret/stack/round-robin-proxy';
import { canaryPullSecret, type Canary } from '../helpers/canary';
import { scanForCanaries } from '../helpers/secret-scan';
import { leftAfterDelete } from '../helpers/secret-manager';
import { CUSTOMER_PROJECT, startTestStack, type TestStack } from '../helpers/stack';

const TOPIC_SOURCE = '//pubsub.googleapis.com/projects/demo-hyperfleet/topics/';

describe('end to end on the local stack: Eventarc-style delivery', () => {
  let stack: TestStack;
  const canaries: Canary[] = [];

  beforeAll(async () => {
    stack = await startTestStack({
      delivery: 'eventarc',
      // One attempt per API call: a 503 fails the delivery itself, so Pub/Sub must redeliver it.
      adapterEnv: { HYPERFLEET_API_RETRY_ATTEMPTS: '1' },
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  const canary = (label: string) => {
    const c = canaryPullSecret(label);
    canaries.push(c);
    return c.text;
  };
  /** What a converter forwarded, from its log (one JSON line per request). */
  const converted = (logFile: string | undefined): ProxyRecord[] =>
    fs
      .readFileSync(logFile ?? '', 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as ProxyRecord);

  let id: string;

  it('says in stack.json that it delivers as Eventarc does, with a converter before each function', () => {
    expect(stack.d.delivery).toBe('eventarc');
    expect(stack.d.reporterConverter?.endpoint).toBe(stack.d.endpoints.reporter);
    expect(stack.d.subscriptions.results?.pushEndpoint).toContain(
      stack.d.reporterConverter!.endpoint,
    );
  });

  // Issue 29 §1: Eventarc's subscription as production has it: a 10 s ack deadline, which Terraform
  // cannot change, and no dead-letter policy (only the code's bounds stop a poison event).
  it("wires each subscription as Eventarc's: 10 s ack deadline, no dead-letter topic", async () => {
    const pubsub = new PubSub({
      projectId: stack.d.project,
      apiEndpoint: stack.d.endpoints.pubsub,
      emulatorMode: true,
    });
    try {
      const subscriptions = Object.values(stack.d.subscriptions);
      expect(subscriptions).toHaveLength(4);
      for (const { subscription, deadLetterTopic } of subscriptions) {
        expect(deadLetterTopic).toBeUndefined();
        const [metadata] = await pubsub.subscription(subscription).getMetadata();
        expect({
          subscription,
          ack: metadata.ackDeadlineSeconds,
          deadLetter: metadata.deadLetterPolicy ?? null,
        }).toEqual({
          subscription,
          ack: 10,
          deadLetter: null,
        });
      }
    } finally {
      await pubsub.close();
    }
  });

  it('create: converges with one version and one Kubernetes write', async () => {
    id = await stack.createCluster('e2e-eventarc', canary('eventarc-1'));
    await stack.converged(id, 1);
    expect(await stack.versions(id)).toEqual(['1:ENABLED']);
    expect((await stack.kubeWrites(id)).map((w) => w.method)).toEqual(['POST']);
    expect(await stack.own(id)).toMatchObject({
      observedGeneration: 1,
      available: 'True',
      availableReason: 'PullSecretProvisioned',
    });
  });

  it('update: a pull secret PATCH adds exactly one version and one Kubernetes write', async () => {
    await stack.api.patchCluster(id, { spec: { pullSecret: { data: canary('eventarc-2') } } });
    await stack.converged(id, 2);
    expect(await stack.versions(id)).toEqual(['2:ENABLED', '1:DESTROYED']);
    expect((await stack.kubeWrites(id)).map((w) => w.method)).toEqual(['POST', 'PATCH']);
  });

  it('a delivery that fails (HyperFleet 503 on the status write) is redelivered with the same ce-id and the cluster converges', async () => {
    const failing = await stack.createCluster('e2e-eventarc-503', canary('eventarc-503'));
    // The adapter's first status write for this cluster (its launch intent or a not-met report)
    // fails; with one attempt per call the delivery fails. Only the functions write statuses, so
    // the test's own reads cannot take the fault.
    await stack.fault('hyperfleet-api', {
      match: `PUT /api/hyperfleet/v1/clusters/${failing}/statuses`,
      count: 1,
      status: 503,
    });
    await stack.converged(failing);
    expect(await stack.versions(failing)).toEqual(['1:ENABLED']);
    const answers = (await stack.requests('hyperfleet-api'))
      .filter(
        (r) => r.method === 'PUT' && r.target.startsWith(`/api/hyperfleet/v1/clusters/${failing}`),
      )
      .map((r) => r.outcome);
    expect(answers[0]).toBe(503);
    const failedIds = new Set(
      converted(stack.d.adapters.proxy.logFile)
        .filter((r) => r.status >= 500 && r.eventarc)
        .map((r) => r.eventarc!.ceId),
    );
    expect(failedIds.size).toBe(1);
    // Pub/Sub redelivers a failed message under the same id, and Eventarc's ce-id is that id.
    await stack.waitFor('the failed delivery redelivered and acknowledged', async () =>
      converted(stack.d.adapters.proxy.logFile).some(
        (r) => r.status < 300 && r.eventarc && failedIds.has(r.eventarc.ceId),
      ),
    );
  });

  it('delete: both secrets removed once, the cluster hard-deleted', async () => {
    await stack.api.deleteCluster(id);
    await stack.waitFor(
      `cluster ${id} hard-deleted`,
      async () => (await stack.cluster(id)) === undefined,
    );
    expect(
      await leftAfterDelete(
        stack.sm,
        `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
      ),
    ).toBe('tombstone');
    expect(await stack.ourSecrets(id)).toEqual([]);
    expect((await stack.kubeWrites(id)).map((w) => w.method)).toEqual(['POST', 'PATCH', 'DELETE']);
  }, 40_000);

  it('the functions received only binary-mode CloudEvents from all three topics, and decoded every one', () => {
    const adapter = converted(stack.d.adapters.proxy.logFile);
    const reporter = converted(stack.d.reporterConverter?.logFile);
    expect(adapter.length).toBeGreaterThan(5);
    // Sentinel's events, and the fleet-requests topic's (Secret Manager's TOPIC_CONFIGURED at start).
    expect(
      adapter.every((r) =>
        [
          `${TOPIC_SOURCE}hyperfleet-system-clusters`,
          `${TOPIC_SOURCE}pullsecret-fleet-requests`,
        ].includes(r.eventarc?.ceSource ?? ''),
      ),
    ).toBe(true);
    expect(
      adapter.some((r) => r.eventarc?.ceSource === `${TOPIC_SOURCE}hyperfleet-system-clusters`),
    ).toBe(true);
    expect(reporter.every((r) => r.eventarc !== undefined)).toBe(true);
    expect(new Set(reporter.map((r) => r.eventarc?.ceSource))).toEqual(
      new Set([
        `${TOPIC_SOURCE}pullsecret-job-results`,
        `${TOPIC_SOURCE}pullsecret-execution-finished`,
      ]),
    );
    // Nothing was refused by a converter or discarded as malformed by a function.
    expect([...adapter, ...reporter].filter((r) => r.status === 400)).toEqual([]);
    expect(stack.logText()).not.toMatch(/"decision":"malformed"|"decision":"retry-bound-exceeded"/);
  });

  it('no canary in any log, message or state file', async () => {
    expect(await scanForCanaries(stack, canaries)).toEqual([]);
  });
});
