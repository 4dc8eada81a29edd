import type { ReadyProcess } from '../../common/child-process';
import path from 'node:path';
import { startPubSubEmulator, type PubSubEmulator } from '../../pubsub/pubsub-emulator';
import { startTraceReceiver } from '../../traces/receiver';
import type { ClusterAccess } from './cluster-access';
import { describeStack } from './describe-stack';
import { layoutEnv, type NamespaceLayout } from '../../../shared/pull-secret/namespace-layout';
import {
  ADAPTER_IDENTITY,
  DEFAULT_MANAGEMENT_CLUSTER,
  JOB_NAME,
  REPORTER_IDENTITY,
  LAUNCH_QUEUE,
  TOPICS,
  topicPath,
} from './layout';
import { relayoutFence } from './management-clusters';
import { createLauncher, type Launcher } from './launcher';
import { pushSubscriptions, wireSubscriptions } from './push-subscriptions';
import type { Stack, StackDescription, StackOptions } from './stack-description';
import { startCloudRun } from './start-cloud-run';
import { startFunctions } from './start-functions';
import { startGoogleSide } from './start-google-side';
import { launchEnv, startLaunchQueue } from './start-launch-queue';
import {
  startHyperFleetApi,
  startHyperShiftSimulator,
  startSentinelProcess,
  writeHyperFleetToken,
} from './start-hyperfleet-side';
import { tracingEnv } from './tracing-env';

/** POST to an emulator's admin API (`/_emulator/...`); fails on anything but 2xx. */
async function postAdmin(base: string, route: string, body: unknown): Promise<void> {
  const response = await fetch(`${base}/_emulator${route}`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${route}: ${response.status} ${await response.text()}`);
}

/**
 * Each function's own metadata server listener (GCE_METADATA_HOST): its own Google identity; and
 * the CA of the TLS Google API emulators.
 */
const functionIdentities = (access: ClusterAccess) => ({
  identities: {
    adapter: access.metadata.accounts[ADAPTER_IDENTITY]!.host,
    reporter: access.metadata.accounts[REPORTER_IDENTITY]!.host,
  },
  caFile: access.publicCaFile,
});

/** The trace receiver every component exports to: first up, last down, so every final flush lands. */
async function startTraces(launcher: Launcher): Promise<{ endpoint: string; dir: string }> {
  const traces = await startTraceReceiver({ dir: path.join(launcher.options.workDir, 'traces') });
  launcher.components.add('traces', { stop: () => traces.close() });
  launcher.options.onProgress?.('traces', { endpoint: traces.endpoint });
  return { endpoint: traces.endpoint, dir: traces.dir };
}

/**
 * Google's Pub/Sub emulator. Restarting it loses topics and subscriptions (the emulator keeps
 * none), so a restart on the same port runs `rewire` too.
 */
async function startPubSub(launcher: Launcher, rewire: () => Promise<void>): Promise<string> {
  const { root } = launcher.options;
  const start = (port?: number): Promise<PubSubEmulator> =>
    startPubSubEmulator({
      logFile: launcher.log('pubsub'),
      ...(port ? { port } : {}),
      guarded: {
        parentPid: process.pid,
        watchdog: launcher.watchdog[1]!,
        guard: path.join(root, 'dist/emulators/common/guard.js'),
      },
    });
  const pubsub = await start();
  const port = Number(pubsub.endpoint.split(':').pop());
  launcher.components.add('pubsub', pubsub, async () => {
    const restarted = await start(port);
    await rewire();
    return restarted;
  });
  launcher.options.onProgress?.('pubsub', pubsub.info());
  return pubsub.endpoint;
}

/**
 * Starts the whole system on this machine, wired as in production: Google's Pub/Sub emulator, the
 * project's Secret Manager, Kubernetes API, HyperFleet API and Cloud Run Jobs emulators, the adapter
 * and reporter in functions-framework, push subscriptions with retries and dead-letter topics, and
 * a Sentinel. Every component gets a free port and a log file; a failure stops what was started.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const launcher = createLauncher(options);
  const stopAll = () => launcher.components.stopAll();
  try {
    const traces = await startTraces(launcher);
    const otel = tracingEnv(traces.endpoint);
    const pubsubEndpoint = await startPubSub(launcher, () => wire());
    const hyperfleetToken = writeHyperFleetToken(launcher);
    const delivery = options.delivery ?? 'push';
    // Independent emulators start together: start-up takes as long as the slowest, not the sum.
    const [google, hyperfleetUrl] = await Promise.all([
      startGoogleSide(launcher, delivery, pubsubEndpoint),
      startHyperFleetApi(launcher, hyperfleetToken, otel.hyperfleetApi),
    ]);
    const { access, secretManager } = google;
    // Each needs the identities' IAM (access); none needs another.
    const [[cloudTasks, cloudRun]] = await Promise.all([
      startLaunchSide(launcher, access, {
        ...google,
        accessEnv: access.jobEnv,
        apiArgs: access.enforcedApiArgs('cloud-run'),
        hyperfleetUrl,
        hyperfleetToken,
        pubsubEndpoint,
        otelEnv: otel.components,
      }),
      startHyperShiftSimulator(launcher, hyperfleetUrl, hyperfleetToken, access.clusters),
    ]);
    const functions = await startFunctions(
      launcher,
      {
        hyperfleetUrl,
        hyperfleetToken,
        cloudRunEndpoint: cloudRun.info.endpoint as string,
        secretManagerEndpoint: secretManager.info.endpoint as string,
        ...functionIdentities(access),
        otelEnv: otel.components,
        launchEnv: launchEnv(cloudTasks, cloudRun),
      },
      delivery,
    );
    const subscriptions = pushSubscriptions(functions.adapterUrl, functions.reporterUrl);
    const wire = () => wireSubscriptions(pubsubEndpoint, subscriptions, delivery);
    // The topics first: Secret Manager refuses a default whose topic does not exist.
    await wire().then(() => google.notifyDefaultChanges(topicPath(TOPICS.fleet)));
    options.onProgress?.('pubsub-wiring', {
      subscriptions: Object.values(subscriptions).map((s) => s.name),
    });
    await startSentinelProcess(launcher, hyperfleetUrl, hyperfleetToken, {
      ...launcher.baseEnv,
      PUBSUB_EMULATOR_HOST: pubsubEndpoint,
      ...otel.sentinel,
    });
    const description = describeStack({
      ...google,
      launcher,
      delivery,
      traces,
      pubsubEndpoint,
      defaultCluster: access.clusters.find((c) => c.name === DEFAULT_MANAGEMENT_CLUSTER)!,
      cloudRun,
      cloudTasks,
      hyperfleetUrl,
      hyperfleetToken,
      functions,
      subscriptions,
    });
    const restart = restarter(launcher, functions.adapters);
    return {
      description,
      stop: stopAll,
      relayout: (layout) => relayoutStack(launcher, access, description, restart, layout),
      restart,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * The launch queue and Cloud Run, together. The job reads its management clusters' launch queues
 * (a batch holds a paused one's clusters): Terraform sets these with the rest of the job's env;
 * here the queue's endpoint is known only once both emulators run, so the job definition gets
 * them as an update.
 */
async function startLaunchSide(
  launcher: Launcher,
  access: ClusterAccess,
  wiring: Parameters<typeof startCloudRun>[1],
): Promise<[ReadyProcess, ReadyProcess]> {
  const [cloudTasks, cloudRun] = await Promise.all([
    startLaunchQueue(launcher, access),
    startCloudRun(launcher, wiring),
  ]);
  await postAdmin(cloudRun.info.admin as string, '/job-env', {
    name: JOB_NAME,
    env: {
      CLOUD_TASKS_API_ENDPOINT: cloudTasks.info.endpoint as string,
      LAUNCH_QUEUE,
      LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER: 'true',
    },
  });
  return [cloudTasks, cloudRun];
}

/** Restarts a component as an operator would; the adapter's instances all (a redeploy). */
function restarter(
  launcher: Launcher,
  adapters: { restartAll(): Promise<void> },
): Stack['restart'] {
  return (component) =>
    component === 'adapter' ? adapters.restartAll() : launcher.components.restart(component);
}

/**
 * What `terraform apply` of another management_namespace does to the running stack (Stack.relayout).
 * The fence first: no execution with the new environment may meet the old fence.
 */
async function relayoutStack(
  launcher: Launcher,
  access: ClusterAccess,
  description: StackDescription,
  restart: Stack['restart'],
  layout: NamespaceLayout,
): Promise<void> {
  launcher.layout.current = layout;
  for (const cluster of access.clusters)
    await relayoutFence(launcher.options.root, cluster.kubeconfig, layout);
  await postAdmin(description.endpoints.cloudRunAdmin, '/job-env', {
    name: JOB_NAME,
    // null removes: the migration variables go when the migration ends.
    env: {
      PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE: null,
      NAMESPACE_MIGRATION_PHASE: null,
      ...layoutEnv(layout),
    },
  });
  await postAdmin(description.endpoints.hyperfleetApi, '/simulated-settings', {
    adapter: 'placement',
    settings: { namespace_template: layout.template },
  });
  await restart('adapter');
}
