import * as z from 'zod';
import { HyperFleetClient } from '../../shared/hyperfleet/client';
import {
  authProviderFor,
  hyperFleetApiEnvShape,
  toHyperFleetApiConfig,
} from '../../shared/hyperfleet/config';
import { nullLogger } from '../../shared/logging/null-logger';
import { describeFirstIssue } from '../../shared/zod-issue';
import { CloudTasksClient } from '../../shared/gcp/lazy/cloud-tasks';
import { UsageError } from './args';
import { PubSub } from '@google-cloud/pubsub';
import { pubsubFleetRequests } from './requests/fleet-requests';
import type { Connect, FleetConnections } from './fleet';

const QUEUE_NAME = /^projects\/[^/]+\/locations\/[^/]+\/queues\/[^/]+$/;

/**
 * Production: the HyperFleet API from `--hyperfleet-api` or HYPERFLEET_API_BASE_URL with the same
 * HYPERFLEET_API_* settings the adapter reads (a token file, or a Google ID token for an API behind
 * Cloud Run or IAP, from Application Default Credentials; the system tenancy header by default),
 * and the launch queue from `--queue` or LAUNCH_QUEUE, called with Application Default Credentials
 * (the operator's gcloud login). Only what a command uses is configured and checked.
 */
export function productionConnect(env: NodeJS.ProcessEnv): Connect {
  return (command) => {
    const queue = command.queue ?? (env.LAUNCH_QUEUE || undefined);
    if (queue !== undefined && !QUEUE_NAME.test(queue))
      throw new UsageError(`LAUNCH_QUEUE "${queue}" is not projects/P/locations/L/queues/Q.`);
    const topic = command.topic ?? (env.FLEET_REQUESTS_TOPIC || undefined);
    if (command.kind === 'resync' && topic === undefined)
      throw new UsageError(
        'resync needs the fleet-requests topic: --topic projects/P/topics/T (terraform output fleet_requests_topic) or FLEET_REQUESTS_TOPIC.',
      );
    if (topic !== undefined && !/^projects\/[^/]+\/topics\/[^/]+$/.test(topic))
      throw new UsageError(`FLEET_REQUESTS_TOPIC "${topic}" is not projects/P/topics/T.`);
    if ((command.kind === 'pause' || command.kind === 'resume') && queue === undefined)
      throw new UsageError(
        `${command.kind} needs the launch queue: --queue projects/P/locations/L/queues/Q (terraform output launch_queue) or LAUNCH_QUEUE.`,
      );
    let admin: CloudTasksClient | undefined;
    let api: HyperFleetClient | undefined;
    let pubsub: PubSub | undefined;
    const connections: FleetConnections = {
      ...(topic ? { topic } : {}),
      fleetRequests: () => pubsubFleetRequests((pubsub ??= new PubSub()), topic!),
      where:
        command.kind === 'resync'
          ? `production: fleet-requests topic ${topic} (Google calls with Application Default Credentials)`
          : `production${queue ? `: launch queue ${queue}` : ''}${command.kind === 'report' ? `${queue ? ',' : ':'} HyperFleet API ${command.hyperfleetApi ?? env.HYPERFLEET_API_BASE_URL ?? '(unset)'}` : ''} (Google calls with Application Default Credentials)`,
      ...(queue ? { queue } : {}),
      queueAdmin: () => (admin ??= cloudTasksClient()),
      hyperfleet: () => api!,
      close: async () => {
        await admin?.close();
        await pubsub?.close();
      },
    };
    if (command.kind === 'report') api = hyperFleetClient(command.hyperfleetApi, env);
    return connections;
  };
}

function hyperFleetClient(baseUrl: string | undefined, env: NodeJS.ProcessEnv): HyperFleetClient {
  const parsed = z
    .object(hyperFleetApiEnvShape)
    .safeParse({ ...env, ...(baseUrl ? { HYPERFLEET_API_BASE_URL: baseUrl } : {}) });
  if (!parsed.success)
    throw new UsageError(
      `the HyperFleet API is not configured (--hyperfleet-api URL or HYPERFLEET_API_*): ${describeFirstIssue(parsed.error)}`,
    );
  const config = toHyperFleetApiConfig(parsed.data);
  return new HyperFleetClient(config, {
    auth: authProviderFor(config.auth),
    logger: nullLogger,
    userAgent: 'pullsecret-fleet',
  });
}

/** The Cloud Tasks client, made only for a command that calls it (ADC, Google's endpoint). */
const cloudTasksClient = (): CloudTasksClient => new CloudTasksClient();
