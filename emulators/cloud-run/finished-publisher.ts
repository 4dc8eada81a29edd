import { PubSub } from '@google-cloud/pubsub';

/**
 * Publishes execution-finished entries to a Pub/Sub topic (`projects/P/topics/T`) on the Pub/Sub
 * emulator, as the log sink does in GCP: the LogEntry as JSON in the message data.
 */
export function createFinishedPublisher(
  topicName: string,
  emulatorHost: string,
): { publish: (entry: Record<string, unknown>) => Promise<void>; close: () => Promise<void> } {
  const match = /^projects\/([^/]+)\/topics\/([^/]+)$/.exec(topicName);
  if (!match)
    throw new Error(`--finished-topic must be projects/PROJECT/topics/TOPIC, got ${topicName}`);
  const pubsub = new PubSub({
    projectId: match[1]!,
    apiEndpoint: emulatorHost,
    emulatorMode: true,
  });
  const topic = pubsub.topic(match[2]!);
  return {
    publish: async (entry) => {
      await topic.publishMessage({
        data: Buffer.from(JSON.stringify(entry)),
        attributes: {
          'logging.googleapis.com/timestamp': String(entry.timestamp ?? new Date().toISOString()),
        },
      });
    },
    close: () => pubsub.close(),
  };
}
