import { wirePubSub } from '../../pubsub/wiring';
import type { DeliveryMode } from './eventarc-conversion';
import {
  DELIVERY,
  EVENTARC_SUBSCRIPTION,
  LOCAL_PROJECT,
  SUBSCRIPTIONS,
  TOPICS,
  topicPath,
} from './layout';
import type { StackDescription } from './stack-description';

type Subscription = (typeof SUBSCRIPTIONS)[keyof typeof SUBSCRIPTIONS];

/** The stack's subscriptions, each with the endpoint it pushes to. */
export type PushSubscriptions = Record<
  keyof typeof SUBSCRIPTIONS,
  Subscription & { readonly pushEndpoint: string }
>;

/**
 * Sentinel's events and the fleet requests go to the adapter; the job's results and finished
 * executions to the reporter.
 */
export function pushSubscriptions(adapterUrl: string, reporterUrl: string): PushSubscriptions {
  const push = (base: string, topic: string) => `${base}/projects/${LOCAL_PROJECT}/topics/${topic}`;
  return {
    adapter: { ...SUBSCRIPTIONS.adapter, pushEndpoint: push(adapterUrl, TOPICS.sentinel) },
    results: { ...SUBSCRIPTIONS.results, pushEndpoint: push(reporterUrl, TOPICS.results) },
    finished: { ...SUBSCRIPTIONS.finished, pushEndpoint: push(reporterUrl, TOPICS.finished) },
    fleet: { ...SUBSCRIPTIONS.fleet, pushEndpoint: push(adapterUrl, TOPICS.fleet) },
  };
}

/**
 * Creates the topics and push subscriptions on the Pub/Sub emulator: retries and dead-letter
 * topics as Terraform sets them, or in eventarc mode Eventarc's own subscription settings.
 */
export function wireSubscriptions(
  pubsubEndpoint: string,
  subscriptions: PushSubscriptions,
  delivery: DeliveryMode,
): Promise<void> {
  return wirePubSub(
    pubsubEndpoint,
    LOCAL_PROJECT,
    Object.values(subscriptions).map((s) => ({
      topic: s.topic,
      subscription: s.name,
      pushEndpoint: s.pushEndpoint,
      ...DELIVERY,
      ...(delivery === 'eventarc' ? EVENTARC_SUBSCRIPTION : { deadLetterTopic: s.deadLetter }),
    })),
  );
}

/** The subscriptions as stack.json names them (full resource names). */
export function describeSubscriptions(
  subscriptions: PushSubscriptions,
  delivery: DeliveryMode,
): StackDescription['subscriptions'] {
  return Object.fromEntries(
    Object.entries(subscriptions).map(([k, s]) => [
      k,
      {
        subscription: `projects/${LOCAL_PROJECT}/subscriptions/${s.name}`,
        topic: topicPath(s.topic),
        ...(delivery === 'eventarc' ? {} : { deadLetterTopic: topicPath(s.deadLetter) }),
        pushEndpoint: s.pushEndpoint,
      },
    ]),
  );
}
