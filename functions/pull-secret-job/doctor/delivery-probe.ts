import type { PubSub } from '@google-cloud/pubsub';
import * as z from 'zod';
import { ROUTES, type Route, type RouteWiring } from './delivery-check';
import { callGoogleRest } from './google-rest';
import { answerOfGrpcError, type ReadAnswer } from './read-answer';

/** The part of an Eventarc Trigger the doctor reads (transport.pubsub.topic). */
const triggerSchema = z.object({
  name: z.string(),
  transport: z.object({ pubsub: z.object({ topic: z.string().optional() }).optional() }).optional(),
});

/** The part of a Pub/Sub subscription the doctor reads. */
const subscriptionSchema = z.object({
  topic: z.string().nullish(),
  pushConfig: z.object({ pushEndpoint: z.string().nullish() }).nullish(),
});

/** Sentinel's topic: Pub/Sub GetTopic (pubsub.topics.get on the topic). */
export async function readTopic(
  pubsub: PubSub,
  topic: string,
  timeoutMs: number,
): Promise<ReadAnswer<{ name: string }>> {
  try {
    await pubsub.topic(topic).getMetadata({ timeout: timeoutMs, retry: null });
    return { kind: 'found', value: { name: topic } };
  } catch (error) {
    return answerOfGrpcError(error);
  }
}

/**
 * One trigger: Eventarc's GetTrigger over REST
 * (GET https://eventarc.googleapis.com/v1/projects/P/locations/R/triggers/NAME, eventarc.triggers.get;
 * https://cloud.google.com/eventarc/docs/reference/rest/v1/projects.locations.triggers/get).
 */
export async function readTrigger(request: {
  readonly base: string;
  readonly name: string;
  readonly token: string;
  readonly timeoutMs: number;
}): Promise<ReadAnswer<RouteWiring>> {
  const answer = await callGoogleRest(
    {
      url: `${request.base}/v1/${request.name}`,
      method: 'GET',
      token: request.token,
      timeoutMs: request.timeoutMs,
    },
    triggerSchema,
  );
  if (answer.kind === 'ok')
    return { kind: 'found', value: { topic: answer.body.transport?.pubsub?.topic ?? '' } };
  if (answer.kind === 'no-answer') return { kind: 'failed', detail: answer.detail };
  if (answer.status === 'NOT_FOUND') return { kind: 'missing' };
  if (answer.status === 'PERMISSION_DENIED') return { kind: 'denied', message: answer.message };
  return {
    kind: 'failed',
    detail: `${answer.httpStatus} ${answer.status ?? ''}: ${answer.message}`,
  };
}

/** One push subscription: Pub/Sub GetSubscription (pubsub.subscriptions.get). */
export async function readSubscription(
  pubsub: PubSub,
  name: string,
  timeoutMs: number,
): Promise<ReadAnswer<RouteWiring>> {
  try {
    const [metadata] = await pubsub
      .subscription(name)
      .getMetadata({ timeout: timeoutMs, retry: null });
    const parsed = subscriptionSchema.safeParse(metadata);
    if (!parsed.success)
      return { kind: 'failed', detail: `${name}: an answer that is not a subscription` };
    return {
      kind: 'found',
      value: {
        topic: parsed.data.topic ?? '',
        ...(parsed.data.pushConfig?.pushEndpoint
          ? { pushEndpoint: parsed.data.pushConfig.pushEndpoint }
          : {}),
      },
    };
  } catch (error) {
    return answerOfGrpcError(error);
  }
}

/** Reads one thing per route, all at once. */
export async function perRoute(
  read: (route: Route) => Promise<ReadAnswer<RouteWiring>>,
): Promise<Record<Route, ReadAnswer<RouteWiring>>> {
  const answers = await Promise.all(ROUTES.map(read));
  return Object.fromEntries(ROUTES.map((route, i) => [route, answers[i]!])) as Record<
    Route,
    ReadAnswer<RouteWiring>
  >;
}
