import { CloudEvent, ValidationError } from 'cloudevents';
import * as z from 'zod';
import {
  CLUSTER_EVENT_TYPES,
  isNodePoolEventType,
  sentinelClusterDataSchema,
  type ClusterEvent,
} from './sentinel-event';
import { describeFirstIssue } from '../zod-issue';
import { eventTraceContext, type EventTraceContext } from './trace-context';

/** What arrived: a cluster event to handle, something to ignore, or something that can never succeed. */
export type DecodedEvent =
  | {
      readonly kind: 'cluster';
      readonly event: ClusterEvent;
      readonly via: 'pubsub' | 'direct';
      /** The trace context to continue (W3C), and why one present was not used. */
      readonly trace: EventTraceContext;
    }
  | { readonly kind: 'ignored'; readonly type: string; readonly reason: string }
  | { readonly kind: 'malformed'; readonly problem: string };

export const PUBSUB_MESSAGE_PUBLISHED = 'google.cloud.pubsub.topic.v1.messagePublished';
const MAX_MESSAGE_BYTES = 1024 * 1024;

/** The envelope Eventarc (and functions-framework for a Pub/Sub push) delivers. */
const pubsubEnvelopeSchema = z.looseObject({
  message: z.looseObject(
    {
      data: z
        .string({
          message:
            'expected the Sentinel event as a base64 string (the event must be in the message body)',
        })
        .min(1, 'is empty (expected the Sentinel event as a base64 string)'),
      // Publishers without attributes may send null; it means none.
      attributes: z.preprocess(
        (value) => (value === null ? undefined : value),
        z.record(z.string(), z.string()).optional(),
      ),
      messageId: z.string().optional(),
    },
    { message: 'expected the Pub/Sub message object {data, attributes, messageId}' },
  ),
  subscription: z.string().optional(),
});

/** The CloudEvent fields a function receives, whatever their origin. */
export interface IncomingCloudEvent {
  readonly id?: string;
  readonly type?: string;
  readonly source?: string;
  readonly specversion?: string;
  /** For a Pub/Sub messagePublished event, the message's publishTime (push and Eventarc alike). */
  readonly time?: string;
  readonly data?: unknown;
  readonly data_base64?: string;
  /** CloudEvents Distributed Tracing extension (only Sentinel's own event's is continued). */
  readonly traceparent?: unknown;
  readonly tracestate?: unknown;
}

/**
 * Decodes what the adapter receives into a Sentinel cluster event. In GCP (and locally through
 * functions-framework) it is a Pub/Sub messagePublished CloudEvent whose message data is Sentinel's
 * structured CloudEvent JSON in base64; other brokers may deliver the Sentinel CloudEvent directly.
 * Never throws: problems come back as `malformed` with a message that says what was wrong.
 */
export function decodeIncomingEvent(incoming: IncomingCloudEvent): DecodedEvent {
  if (incoming.type === PUBSUB_MESSAGE_PUBLISHED) return decodePubSub(incoming.data);
  return decodeSentinelEvent(incoming, 'direct');
}

function decodePubSub(data: unknown): DecodedEvent {
  const envelope = pubsubEnvelopeSchema.safeParse(typeof data === 'string' ? safeJson(data) : data);
  if (!envelope.success)
    return {
      kind: 'malformed',
      problem: `invalid Pub/Sub envelope: ${describeFirstIssue(envelope.error)}`,
    };
  const encoded = envelope.data.message.data;
  if (encoded.length > (MAX_MESSAGE_BYTES * 4) / 3 + 4)
    return { kind: 'malformed', problem: 'message.data: larger than 1 MiB (the Pub/Sub limit)' };
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0)
    return {
      kind: 'malformed',
      problem: 'message.data: not base64 (expected the Sentinel event, base64-encoded)',
    };
  const json = safeJson(Buffer.from(encoded, 'base64').toString('utf8'));
  if (json === undefined)
    return {
      kind: 'malformed',
      problem: "message.data: not JSON (expected Sentinel's structured CloudEvent JSON)",
    };
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return {
      kind: 'malformed',
      problem: 'message.data: not a JSON object (expected a structured CloudEvent)',
    };
  return decodeSentinelEvent(json as IncomingCloudEvent, 'pubsub');
}

function decodeSentinelEvent(
  candidate: IncomingCloudEvent,
  via: 'pubsub' | 'direct',
): DecodedEvent {
  // The SDK fills in a missing id and specversion by itself; an incoming event must carry them.
  for (const attribute of ['specversion', 'id', 'source', 'type'] as const) {
    const value = candidate[attribute];
    if (typeof value !== 'string' || value === '')
      return {
        kind: 'malformed',
        problem: `not a valid CloudEvent: ${attribute}: the required attribute is missing or empty (expected a non-empty string)`,
      };
  }
  let event: CloudEvent<unknown>;

  try {
    // The SDK checks the CloudEvents 1.0 attributes (id, source, type, specversion).
    event = new CloudEvent({ ...candidate }, true);
  } catch (error) {
    const detail =
      error instanceof ValidationError
        ? (error.errors?.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('; ') ??
          error.message)
        : error instanceof Error
          ? error.message
          : String(error);
    return { kind: 'malformed', problem: `not a valid CloudEvent: ${detail}` };
  }
  if (event.specversion !== '1.0')
    return {
      kind: 'malformed',
      problem: `not a valid CloudEvent: specversion: ${JSON.stringify(event.specversion)} is not supported (expected 1.0, what Sentinel sends)`,
    };
  const type = event.type;

  if (isNodePoolEventType(type))
    return {
      kind: 'ignored',
      type,
      reason: 'node pool events are not handled by the pull secret adapter',
    };
  if (!(CLUSTER_EVENT_TYPES as readonly string[]).includes(type))
    return { kind: 'ignored', type, reason: `event type ${type} is not a cluster event` };
  const raw = typeof event.data === 'string' ? safeJson(event.data) : event.data;
  const data = sentinelClusterDataSchema.safeParse(raw);
  if (!data.success)
    return {
      kind: 'malformed',
      problem: `invalid Sentinel event ${event.id} (${type}): ${describeFirstIssue(data.error, 'data')}`,
    };
  return {
    kind: 'cluster',
    via,
    trace: eventTraceContext(candidate),
    event: {
      eventId: event.id,
      type,
      source: event.source,
      clusterId: data.data.id,
      ...(data.data.generation !== undefined ? { generation: data.data.generation } : {}),
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The lenient envelope of a message that may have no body (Secret Manager's TOPIC_CONFIGURED). */
const anyPubsubEnvelopeSchema = z.looseObject({
  message: z.looseObject({
    data: z.string().optional(),
    messageId: z.string().optional(),
    attributes: z.preprocess(
      (value) => (value === null ? undefined : value),
      z.record(z.string(), z.string()).optional(),
    ),
  }),
});

/**
 * A Pub/Sub message's attributes and body, whatever it carries; undefined for anything but a
 * messagePublished event. The adapter looks at the attributes first: a fleet message (Secret
 * Manager's notification or the fleet command's request) is not a Sentinel event.
 */
export function pubsubMessageOf(incoming: IncomingCloudEvent):
  | {
      readonly attributes?: Record<string, string>;
      readonly data?: Buffer;
      readonly messageId?: string;
    }
  | undefined {
  if (incoming.type !== PUBSUB_MESSAGE_PUBLISHED) return undefined;
  const data = incoming.data;
  const envelope = anyPubsubEnvelopeSchema.safeParse(
    typeof data === 'string' ? safeJson(data) : data,
  );
  if (!envelope.success) return undefined;
  const { attributes, data: encoded, messageId } = envelope.data.message;
  return {
    ...(attributes ? { attributes } : {}),
    ...(messageId ? { messageId } : {}),
    ...(encoded !== undefined && encoded.length <= (MAX_MESSAGE_BYTES * 4) / 3 + 4
      ? { data: Buffer.from(encoded, 'base64') }
      : {}),
  };
}
