import {
  startPubSubEmulator,
  type PubSubEmulator,
} from '../../../emulators/pubsub/pubsub-emulator';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { EXIT_CODES, jobResultSchema } from '../../../shared/job-result';
import { canaryPullSecret, leaks } from '../../helpers/canary';
import { runJob } from '../../helpers/job';

const PROJECT = 'demo-project';
const TOPIC = `projects/${PROJECT}/topics/pullsecret-job-results`;
const SUBSCRIPTION = `projects/${PROJECT}/subscriptions/results-tap`;

/** The Pub/Sub emulator's REST surface: enough to create a tap and read what the job published. */
async function pubsubRest(
  emulator: PubSubEmulator,
  method: string,
  path: string,
  body: unknown,
): Promise<unknown> {
  const response = await fetch(`http://${emulator.endpoint}/v1/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

interface Pulled {
  receivedMessages?: { message: { data: string; attributes?: Record<string, string> } }[];
}

describe('pull secret job: the published result and stderr are redacted like the log lines', () => {
  let sm: SecretManagerEmulator;
  let pubsub: PubSubEmulator;

  beforeAll(async () => {
    [sm, pubsub] = await Promise.all([startSecretManagerEmulator(), startPubSubEmulator()]);
    await pubsubRest(pubsub, 'PUT', TOPIC, {});
    await pubsubRest(pubsub, 'PUT', SUBSCRIPTION, { topic: TOPIC });
  }, 90_000);
  afterAll(async () => {
    await Promise.all([sm?.stop(), pubsub?.stop()]);
  });

  it('a failure whose error message echoes the pull secret leaks no canary form', async () => {
    const canary = canaryPullSecret('redaction');
    // A service error that quotes the request body: the job's failure message carries it onward.
    sm.faults.add({
      match: 'AddSecretVersion',
      status: 'INVALID_ARGUMENT',
      message: `payload rejected: ${canary.text} (auth ${canary.forms[2]})`,
    });
    const run = await runJob({
      SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
      PUBSUB_EMULATOR_HOST: pubsub.endpoint,
      RESULTS_TOPIC: TOPIC,
      GCP_PROJECT_ID: PROJECT,
      CLUSTER_ID: 'cls-redact',
      PULL_SECRET_DATA: canary.text,
      // Text logs go to stderr: the failure line is written there.
      LOG_FORMAT: 'text',
    });
    expect(run.code).toBe(EXIT_CODES.permanent);
    expect(run.result.reason).toBe('InvalidArgument');
    expect(run.result.message).toContain('[REDACTED]');

    const pulled = (await pubsubRest(pubsub, 'POST', `${SUBSCRIPTION}:pull`, {
      maxMessages: 10,
    })) as Pulled;
    const messages = pulled.receivedMessages ?? [];
    expect(messages).toHaveLength(1);
    const published = Buffer.from(messages[0]!.message.data, 'base64').toString('utf8');
    const result = jobResultSchema.parse(JSON.parse(published));
    expect(result.outcome).toBe('failed');
    expect(result.message).toContain('payload rejected: [REDACTED]');

    expect(run.stderr).toContain('payload rejected: [REDACTED]');
    expect(leaks(published, [canary])).toEqual([]);
    expect(leaks(JSON.stringify(messages), [canary])).toEqual([]);
    expect(leaks(run.stderr, [canary])).toEqual([]);
    expect(leaks(run.stdout, [canary])).toEqual([]);
  });
});
