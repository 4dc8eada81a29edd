import { PubSub } from '@google-cloud/pubsub';

/** One push subscription as Terraform declares it in GCP. */
export interface PushSubscriptionSpec {
  readonly topic: string;
  readonly subscription: string;
  /** The push endpoint; a functions-framework server at `/projects/P/topics/T`. */
  readonly pushEndpoint: string;
  /** Dead-letter topic and the attempts before a message goes there. */
  readonly deadLetterTopic?: string;
  readonly maxDeliveryAttempts?: number;
  readonly ackDeadlineSeconds?: number;
  readonly minimumBackoffSeconds?: number;
  readonly maximumBackoffSeconds?: number;
}

/**
 * Creates topics and push subscriptions on the Pub/Sub emulator with the same retry and dead-letter
 * settings as Terraform uses in GCP. Idempotent: existing resources are fine.
 */
export async function wirePubSub(
  emulatorHost: string,
  projectId: string,
  specs: readonly PushSubscriptionSpec[],
): Promise<void> {
  const pubsub = new PubSub({ projectId, apiEndpoint: emulatorHost, emulatorMode: true });
  try {
    const topics = new Set(
      specs.flatMap((s) => [s.topic, ...(s.deadLetterTopic ? [s.deadLetterTopic] : [])]),
    );
    for (const topic of topics) await ignoreExists(() => pubsub.createTopic(topic));
    for (const spec of specs) {
      await ignoreExists(() =>
        pubsub.topic(spec.topic).createSubscription(spec.subscription, {
          pushConfig: { pushEndpoint: spec.pushEndpoint },
          ackDeadlineSeconds: spec.ackDeadlineSeconds ?? 60,
          retryPolicy: {
            minimumBackoff: { seconds: spec.minimumBackoffSeconds ?? 10 },
            maximumBackoff: { seconds: spec.maximumBackoffSeconds ?? 600 },
          },
          ...(spec.deadLetterTopic
            ? {
                deadLetterPolicy: {
                  deadLetterTopic: `projects/${projectId}/topics/${spec.deadLetterTopic}`,
                  maxDeliveryAttempts: spec.maxDeliveryAttempts ?? 5,
                },
              }
            : {}),
        }),
      );
      // A pull subscription on each dead-letter topic lets people (and tests) see what landed there.
      if (spec.deadLetterTopic)
        await ignoreExists(() =>
          pubsub.topic(spec.deadLetterTopic!).createSubscription(`${spec.deadLetterTopic}-inspect`),
        );
    }
  } finally {
    await pubsub.close();
  }
}

async function ignoreExists(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    if ((error as { code?: number }).code !== 6) throw error; // ALREADY_EXISTS
  }
}
