// The job's start report: an execution the adapter launched publishes one `pullsecret.job.started`
// message before its first write, on the results topic, with identifiers only; a failed publish
// never fails the run. The real job bundle against the Secret Manager and Pub/Sub emulators.
import {
  startPubSubEmulator,
  type PubSubEmulator,
} from '../../../emulators/pubsub/pubsub-emulator';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import {
  EXIT_CODES,
  RESULT_MESSAGE_TYPE,
  STARTED_MESSAGE_TYPE,
  jobStartedSchema,
} from '../../../shared/job-result';
import { parseTraceparent } from '../../../shared/tracing/traceparent';
import { canaryPullSecret, leaks } from '../../helpers/canary';
import { runJob } from '../../helpers/job';

const PROJECT = 'demo-project';
const TOPIC = `projects/${PROJECT}/topics/pullsecret-job-results`;
const SUBSCRIPTION = `projects/${PROJECT}/subscriptions/started-tap`;
const TRACE_ID = '5bf92f3577b34da6a3ce929d0e0e4736';
// A launch task's id at its longest: HASH8-CLUSTERID-gGEN-OP-aATTEMPT with a 63-character cluster id.
const LAUNCH_ID = `0badcafe-${'c'.repeat(63)}-g12-apply-a3`;

interface Pulled {
  receivedMessages?: {
    ackId: string;
    message: { data: string; attributes?: Record<string, string> };
  }[];
}

describe('pull secret job: reports its start once, before its first write', () => {
  let sm: SecretManagerEmulator;
  let pubsub: PubSubEmulator;

  const pubsubRest = async (method: string, path: string, body: unknown): Promise<unknown> => {
    const response = await fetch(`http://${pubsub.endpoint}/v1/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  /** Everything published since the last call (acknowledged). */
  const published = async () => {
    const pulled = (await pubsubRest('POST', `${SUBSCRIPTION}:pull`, {
      maxMessages: 10,
    })) as Pulled;
    const messages = pulled.receivedMessages ?? [];
    if (messages.length > 0)
      await pubsubRest('POST', `${SUBSCRIPTION}:acknowledge`, {
        ackIds: messages.map((m) => m.ackId),
      });
    return messages.map((m) => m.message);
  };
  const ofType = (messages: Awaited<ReturnType<typeof published>>, type: string) =>
    messages.filter((m) => m.attributes?.type === type);

  beforeAll(async () => {
    [sm, pubsub] = await Promise.all([startSecretManagerEmulator(), startPubSubEmulator()]);
    await pubsubRest('PUT', TOPIC, {});
    await pubsubRest('PUT', SUBSCRIPTION, { topic: TOPIC });
  }, 90_000);
  afterAll(async () => {
    await Promise.all([sm?.stop(), pubsub?.stop()]);
  });

  const launched = (clusterId: string, pullSecret: string) => ({
    SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
    PUBSUB_EMULATOR_HOST: pubsub.endpoint,
    RESULTS_TOPIC: TOPIC,
    GCP_PROJECT_ID: PROJECT,
    CLUSTER_ID: clusterId,
    GENERATION: '12',
    LAUNCH_ATTEMPT: '3',
    LAUNCH_ID,
    CLOUD_RUN_EXECUTION: `pullsecret-job-${clusterId}`,
    PULL_SECRET_DATA: pullSecret,
    TRACEPARENT: `00-${TRACE_ID}-00f067aa0ba902b7-01`,
  });

  it('publishes exactly one start report with the launch fields, before the claim, and nothing secret', async () => {
    const canary = canaryPullSecret('started');
    const run = await runJob(launched('cls-started', canary.text));
    expect(run.code).toBe(EXIT_CODES.success);

    const messages = await published();
    const started = ofType(messages, STARTED_MESSAGE_TYPE);
    expect(started).toHaveLength(1);
    expect(ofType(messages, RESULT_MESSAGE_TYPE)).toHaveLength(1);
    const body = jobStartedSchema.parse(
      JSON.parse(Buffer.from(started[0]!.data, 'base64').toString('utf8')),
    );
    expect(body).toEqual({
      cluster_id: 'cls-started',
      generation: 12,
      operation: 'apply',
      attempt: 3,
      execution: 'pullsecret-job-cls-started',
      launch_id: LAUNCH_ID,
      started_at: expect.any(String),
    });
    expect(Date.parse(body.started_at)).toBeLessThanOrEqual(Date.parse(run.result.finished_at));
    expect(started[0]!.attributes).toMatchObject({
      cluster_id: 'cls-started',
      execution: 'pullsecret-job-cls-started',
    });
    expect(parseTraceparent(started[0]!.attributes?.traceparent)?.traceId).toBe(TRACE_ID);

    // Published before the first write: the claim (which creates the secret) is logged after it.
    const at = (text: string) =>
      run.lines.findIndex((line) => String(line.message).startsWith(text));
    expect(at('Published the start report')).toBeGreaterThanOrEqual(0);
    expect(at('Published the start report')).toBeLessThan(at('Claimed'));

    expect(leaks(JSON.stringify(started), [canary])).toEqual([]);
  });

  it('dry runs and direct runs (no GENERATION) report no start', async () => {
    const canary = canaryPullSecret('no-start');
    const dry = await runJob(launched('cls-dry-start', canary.text), ['--dry-run']);
    expect(dry.code).toBe(EXIT_CODES.success);
    const { GENERATION: _g, LAUNCH_ATTEMPT: _a, ...direct } = launched('cls-direct', canary.text);
    expect((await runJob(direct)).code).toBe(EXIT_CODES.success);
    const messages = await published();
    expect(ofType(messages, STARTED_MESSAGE_TYPE)).toEqual([]);
    // The direct run's result is still published (a dry run publishes nothing).
    expect(ofType(messages, RESULT_MESSAGE_TYPE)).toHaveLength(1);
  });

  it('a start report that cannot be published is logged and the run still succeeds', async () => {
    const run = await runJob({
      ...launched('cls-start-lost', canaryPullSecret('start-lost').text),
      // No such topic: every publish is refused (NOT_FOUND), the start report's and the result's.
      RESULTS_TOPIC: `projects/${PROJECT}/topics/no-such-topic`,
    });
    expect(run.code).toBe(EXIT_CODES.success);
    expect(run.result).toMatchObject({ outcome: 'succeeded', reason: 'PullSecretProvisioned' });
    const startLines = (severity: string) =>
      run.lines.filter(
        (line) =>
          (line.metadata as Record<string, unknown> | undefined)?.operation === 'publish-started' &&
          line.severity === severity,
      );
    const failures = startLines('ERROR');
    expect(failures).toHaveLength(1);
    expect(String(failures[0]!.message)).toContain('Could not publish the start report');
    // Retried briefly before giving up (three tries).
    expect(startLines('WARNING')).toHaveLength(2);
    expect(run.result.secret_manager).toMatchObject({ secret: 'created', version: 'added' });
  });
});
