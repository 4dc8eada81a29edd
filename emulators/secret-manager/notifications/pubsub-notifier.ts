import { status } from '@grpc/grpc-js';
import { PubSub, type Topic } from '@google-cloud/pubsub';
import { GrpcError } from '../../common/grpc-error';
import { topicConfiguredMessage, type NotificationMessage } from './event-message';

/** Where Secret Manager's notifications go: the Pub/Sub emulator. */
export interface SecretNotifier {
  /**
   * Sends TOPIC_CONFIGURED to each topic and waits: a topic that cannot be published to refuses
   * the change, before it is made (docs/emulators.md, "As strict as the services").
   */
  configureTopics(serviceAgent: string, topics: readonly string[]): Promise<void>;
  /** After a change: one message per topic, in the order of the changes, without holding the RPC. */
  publish(topics: readonly string[], message: NotificationMessage): void;
  /** Resolves once every message handed to `publish` so far is published or has failed. */
  idle(): Promise<void>;
  /** Lets pending publishes finish (a few seconds at most: Pub/Sub may be gone), then closes. */
  close(): Promise<void>;
}

const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
/** The test publish holds a CreateSecret/UpdateSecret: bounded, not Pub/Sub's 600 s retry. */
const CONFIGURE_TIMEOUT_MS = 10_000;
/** How long stopping waits for notifications still being published. */
const CLOSE_GRACE_MS = 5_000;

/**
 * Publishes to the Pub/Sub emulator at `endpoint` (host:port) with the client the project uses
 * elsewhere, in emulator mode. Messages are sent one change after another (all topics of one
 * change together), so a subscriber sees SECRET_VERSION_ADD before the DISABLE that followed it;
 * the service promises no order (Pub/Sub is at-least-once), so consumers must not rely on it.
 */
export function pubsubNotifier(endpoint: string): SecretNotifier {
  const pubsub = new PubSub({ apiEndpoint: endpoint, emulatorMode: true, projectId: 'emulator' });
  // One message per call: no batching delay between a change and its notification. The test
  // publish holds the RPC, so its retries end within CONFIGURE_TIMEOUT_MS; a change's notifications
  // keep the client's own retries (minutes), as at-least-once delivery wants.
  const notifying = topicCache(pubsub, {});
  const configuring = topicCache(pubsub, { timeout: CONFIGURE_TIMEOUT_MS });
  let tail: Promise<void> = Promise.resolve();
  const send = async (topic: string, message: NotificationMessage) => {
    try {
      await notifying(topic).publishMessage({
        ...(message.data ? { data: message.data } : {}),
        attributes: { ...message.attributes },
      });
    } catch (error) {
      // The change stands (it was made before): a topic deleted since, or Pub/Sub gone for longer
      // than the client's retries. Names and the event only: the log needs no more.
      const code = (error as { code?: number }).code;
      process.stderr.write(
        `secret-manager: could not publish ${message.attributes.eventType} to ${topic} (code ${code ?? '?'})\n`,
      );
    }
  };
  const idle = async () => {
    let seen: Promise<void>;
    do {
      seen = tail;
      await seen;
    } while (seen !== tail);
  };
  return {
    async configureTopics(serviceAgent, names) {
      const { attributes } = topicConfiguredMessage();
      await Promise.all(
        names.map((name) =>
          configuring(name)
            .publishMessage({ attributes: { ...attributes } })
            .catch((error: unknown) => {
              throw refusal(serviceAgent, name, error);
            }),
        ),
      );
    },
    publish(names, message) {
      tail = tail.then(() => Promise.all(names.map((name) => send(name, message)))).then(() => {});
    },
    idle,
    async close() {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        idle(),
        new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS))),
      ]);
      clearTimeout(timer);
      await pubsub.close();
    },
  };
}

/** Topic handles by name, each publishing one message per request. */
function topicCache(pubsub: PubSub, gaxOpts: { timeout?: number }): (name: string) => Topic {
  const topics = new Map<string, Topic>();
  return (name) => {
    let topic = topics.get(name);
    if (!topic) {
      topic = pubsub.topic(name, { batching: { maxMessages: 1, maxMilliseconds: 0 }, gaxOpts });
      topics.set(name, topic);
    }
    return topic;
  };
}

/**
 * What a topic Secret Manager cannot publish to answers. The service's own code and wording are
 * not published (a create fails, and succeeds once the grant has propagated); Cloud Storage,
 * whose notifications work the same way, says "The service account '…' does not have permission
 * to publish messages to the Cloud Pub/Sub topic '…', or that topic does not exist". The Pub/Sub
 * emulator has no IAM, so only a missing topic can happen here; it is a precondition the caller
 * fixes (FAILED_PRECONDITION), while Pub/Sub being unreachable is UNAVAILABLE, worth a retry.
 */
function refusal(serviceAgent: string, topic: string, error: unknown): GrpcError {
  const code = (error as { code?: number }).code;
  if (code === NOT_FOUND || code === PERMISSION_DENIED)
    return new GrpcError(
      status.FAILED_PRECONDITION,
      `Secret Manager could not publish to topic [${topic}]: the service agent ${serviceAgent} needs pubsub.topics.publish on it, or the topic does not exist.`,
    );
  return new GrpcError(
    status.UNAVAILABLE,
    `Secret Manager could not reach Pub/Sub to publish to topic [${topic}]; try again.`,
  );
}
