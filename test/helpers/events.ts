import { randomUUID } from 'node:crypto';
import type { PubSub } from '@google-cloud/pubsub';

/** Sentinel's structured CloudEvent for a cluster, as it publishes it. */
export function sentinelEvent(
  clusterId: string,
  generation: number,
  type = 'com.redhat.hyperfleet.cluster.reconcile',
) {
  return {
    specversion: '1.0',
    type,
    source: 'hyperfleet-sentinel',
    id: randomUUID(),
    datacontenttype: 'application/json',
    data: {
      id: clusterId,
      kind: 'Cluster',
      href: `/api/hyperfleet/v1/clusters/${clusterId}`,
      generation,
    },
  };
}

/** POSTs a Pub/Sub push request (as the Pub/Sub emulator and push subscriptions send them). */
export async function pushPubSub(
  baseUrl: string,
  payload: unknown,
  options: { raw?: string; topic?: string; attributes?: Record<string, string> } = {},
): Promise<number> {
  const data = options.raw ?? Buffer.from(JSON.stringify(payload)).toString('base64');
  const response = await fetch(
    `${baseUrl}/projects/demo-project/topics/${options.topic ?? 'hyperfleet-system-clusters'}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        message: {
          data,
          attributes: options.attributes ?? { _watermill_message_uuid: randomUUID() },

          messageId: String(Date.now() + Math.random()),
          publishTime: new Date().toISOString(),
        },
        subscription: 'projects/demo-project/subscriptions/pullsecret-adapter',
      }),
    },
  );
  await response.text();
  return response.status;
}

/** POSTs a CloudEvent in binary HTTP mode (ce-* headers, data as the body). */
export async function postBinary(
  baseUrl: string,
  event: ReturnType<typeof sentinelEvent>,
): Promise<number> {
  const response = await fetch(baseUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'ce-specversion': event.specversion,
      'ce-type': event.type,
      'ce-source': event.source,
      'ce-id': event.id,
    },
    body: JSON.stringify(event.data),
  });
  await response.text();
  return response.status;
}

/** POSTs a CloudEvent in structured HTTP mode. */
export async function postStructured(baseUrl: string, event: unknown): Promise<number> {
  const response = await fetch(baseUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents+json' },
    body: JSON.stringify(event),
  });
  await response.text();
  return response.status;
}

/**
 * The same Sentinel reconcile event published `copies` times at once, each as its own Pub/Sub
 * message (a new watermill id, as duplicates from Sentinel's replicas would carry): the round-robin
 * proxy spreads them over the adapter instances.
 */
export async function publishCopies(
  pubsub: PubSub,
  event: Record<string, unknown>,
  copies: number,
): Promise<void> {
  const topic = pubsub.topic('hyperfleet-system-clusters');
  const data = Buffer.from(JSON.stringify(event));
  await Promise.all(
    Array.from({ length: copies }, () =>
      topic.publishMessage({ data, attributes: { _watermill_message_uuid: randomUUID() } }),
    ),
  );
}
