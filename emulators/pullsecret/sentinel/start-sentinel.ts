import { PubSub } from '@google-cloud/pubsub';
import { randomUUID } from 'node:crypto';
import type { RunningEmulator } from '../../common/emulator';
import type { Logger } from '../../../shared/logging/logger';
import { Sentinel } from './sentinel';
import { localHyperFleetClient } from '../hyperfleet/local-hyperfleet-client';

export interface SentinelOptions {
  readonly hyperfleetBaseUrl: string;
  /** The API's bearer token file, when JWT is on. */
  readonly hyperfleetTokenFile?: string;
  /** projects/P/topics/T on the Pub/Sub emulator (PUBSUB_EMULATOR_HOST). */
  readonly topic: string;
  readonly pubsubEmulatorHost: string;
  readonly pollMs: number;
  readonly notReadyMs: number;
  readonly readyMs: number;
  readonly logger: Logger;
}

/** Starts the local Sentinel; each published event is logged as one JSON line (the stack's timeline reads them). */
export async function startSentinel(options: SentinelOptions): Promise<RunningEmulator> {
  const [, project = '', , topicId = ''] = options.topic.split('/');
  const pubsub = new PubSub({
    projectId: project,
    apiEndpoint: options.pubsubEmulatorHost,
    emulatorMode: true,
  });
  const topic = pubsub.topic(topicId, { batching: { maxMessages: 1 } });
  // Sentinel is a system component: it lists every tenant's clusters with the system header.
  const api = localHyperFleetClient(options.hyperfleetBaseUrl, options.logger, {
    ...(options.hyperfleetTokenFile ? { tokenFile: options.hyperfleetTokenFile } : {}),
    userAgent: 'local-sentinel',
  });
  const sentinel = new Sentinel(
    api,
    async (event) => {
      await topic.publishMessage({
        data: Buffer.from(JSON.stringify(event)),
        attributes: { _watermill_message_uuid: randomUUID() },
      });
    },
    { notReadyMs: options.notReadyMs, readyMs: options.readyMs },
    (cluster, reason) =>
      options.logger.info(`Published reconcile event for cluster ${cluster.name}`, {
        cluster_id: cluster.id,
        generation: cluster.generation,
        reason,
        decision: 'published',
      }),
    (error) =>
      options.logger.warn(
        `Sentinel poll failed: ${error instanceof Error ? error.message : String(error)}`,
      ),
  );
  sentinel.start(options.pollMs);
  return {
    name: 'sentinel',
    endpoint: options.topic,
    info: () => ({
      name: 'sentinel',
      endpoint: options.topic,
      hyperfleet: options.hyperfleetBaseUrl,
    }),
    stop: async () => {
      await sentinel.stop();
      await pubsub.close();
    },
  };
}
