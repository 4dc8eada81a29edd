import * as z from 'zod';
import { PUBSUB_MESSAGE_PUBLISHED } from '../../../shared/events/decode';

/** How the local stack delivers Pub/Sub messages to the functions (LOCAL_DELIVERY). */
export const DELIVERY_MODES = ['push', 'eventarc'] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

/** What a Pub/Sub push subscription POSTs (the wrapped envelope; the emulator adds snake_case twins). */
const pushEnvelopeSchema = z.looseObject({
  message: z.looseObject({
    data: z.string().optional(),
    attributes: z.record(z.string(), z.string()).nullish(),
    messageId: z.string().min(1),
    publishTime: z.string().min(1),
  }),
  subscription: z.string().min(1),
});

/** A request as Eventarc sends it to a Cloud Run function for a Pub/Sub trigger. */
export interface EventarcRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export type Conversion =
  | { readonly ok: true; readonly request: EventarcRequest }
  | { readonly ok: false; readonly problem: string };

/**
 * Turns a push delivery into Eventarc's binary content mode (Eventarc delivers Pub/Sub events to
 * Cloud Run in binary content mode; docs/emulators.md): the CloudEvent attributes in `ce-*` headers, the Pub/Sub message in the body, and no
 * `deliveryAttempt` (Eventarc's subscription has no dead-letter policy). The topic comes from the
 * push path `/projects/P/topics/T`; Eventarc posts to the service root, so the path becomes `/` and
 * the function cannot lean on it. Pure; never throws.
 */
export function pushToEventarc(pushPath: string, pushBody: Buffer): Conversion {
  const topic = /\/(projects\/[^/?]+\/topics\/[^/?]+)/.exec(pushPath)?.[1];
  if (!topic)
    return {
      ok: false,
      problem: `push path ${pushPath} does not name a topic (expected /projects/P/topics/T)`,
    };
  let json: unknown;
  try {
    json = JSON.parse(pushBody.toString('utf8'));
  } catch {
    return { ok: false, problem: 'push body is not JSON' };
  }
  const envelope = pushEnvelopeSchema.safeParse(json);
  if (!envelope.success)
    return {
      ok: false,
      problem: `push body is not a Pub/Sub push envelope: ${envelope.error.issues[0]?.path.join('.') ?? ''} ${envelope.error.issues[0]?.message ?? ''}`,
    };
  const { message, subscription } = envelope.data;
  const body = {
    message: {
      ...(message.data !== undefined ? { data: message.data } : {}),
      ...(message.attributes ? { attributes: message.attributes } : {}),
      messageId: message.messageId,
      publishTime: message.publishTime,
    },
    subscription,
  };
  return {
    ok: true,
    request: {
      path: '/',
      headers: {
        'ce-specversion': '1.0',
        'ce-type': PUBSUB_MESSAGE_PUBLISHED,
        'ce-source': `//pubsub.googleapis.com/${topic}`,
        'ce-id': message.messageId,
        'ce-time': message.publishTime,
        'content-type': 'application/json',
      },
      body: Buffer.from(JSON.stringify(body)),
    },
  };
}
