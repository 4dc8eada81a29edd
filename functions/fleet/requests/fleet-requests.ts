import type { PubSub } from '@google-cloud/pubsub';
import {
  FLEET_REQUEST_ATTRIBUTE,
  selectorText,
  type BatchSelector,
} from '../../../shared/batch/batch-request';

/** Publishes resync requests to the fleet-requests topic; the adapter turns each into one batch launch. */
export interface FleetRequestPublisher {
  /** Returns the message id, which names the batch launch the adapter makes of it. */
  resync(selector: BatchSelector, requestedBy: string | undefined, now: Date): Promise<string>;
}

/** Over a Pub/Sub client (the operator's credentials, or the local stack's emulator). */
export function pubsubFleetRequests(pubsub: PubSub, topic: string): FleetRequestPublisher {
  return {
    resync: async (selector, requestedBy, now) => {
      const body = {
        kind: 'resync',
        selector: selectorText(selector),
        requested_at: now.toISOString(),
        ...(requestedBy ? { requested_by: requestedBy } : {}),
      };
      return pubsub.topic(topic).publishMessage({
        data: Buffer.from(JSON.stringify(body)),
        attributes: { [FLEET_REQUEST_ATTRIBUTE]: 'resync' },
      });
    },
  };
}
