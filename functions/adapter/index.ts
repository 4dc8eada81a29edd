// Entry point of the adapter Cloud Run function (CloudEvent signature, Eventarc/Pub/Sub trigger).
// Wiring only: configuration is validated when the module loads; clients are built on first use,
// the Cloud Tasks client only when an event launches, the Cloud Run one when it reads an execution.
import * as functions from '@google-cloud/functions-framework';
import { withDeliveryDeadline } from '../../shared/events/delivery-deadline';
import type { CloudEventV1 } from 'cloudevents';
import { withBoundedRetries } from '../../shared/events/bounded-retries';
import { decodeIncomingEvent, pubsubMessageOf } from '../../shared/events/decode';
import { fleetMessageOf } from './decision/fleet-message';
import { handleFleetMessage, type FleetRequestDependencies } from './flows/fleet-request-flow';
import { loadConfigOrExit } from '../../shared/config/startup-failure';
import { lazily } from '../../shared/lazily';
import { HyperFleetClient } from '../../shared/hyperfleet/client';
import { authProviderFor } from '../../shared/hyperfleet/config';
import {
  FUNCTION_CRASH_EXIT_CODE,
  installCrashHandlers,
} from '../../shared/logging/crash-handlers';
import { createLogger } from '../../shared/logging/logger';
import { SecretRedactor } from '../../shared/logging/secret-redactor';
import { startTracing } from '../../shared/tracing/start';
import { CloudRunExecutionReader } from '../../shared/executions/cloud-run-execution-reader';
import type { ExecutionReader } from '../../shared/executions/execution-reader';
import { CloudTasksLaunchQueue } from './launch-queue/cloud-tasks-launch-queue';
import type { LaunchQueue } from './launch-queue/launch-queue';
import { loadAdapterConfig } from './config/config';
import { createAdapterHandler } from './flows/handle-event';
import { compilePreconditions } from './decision/preconditions';
import { compileDriftCondition } from './decision/drift-condition';

// A crash prints one line without any secret or credential-shaped string and exits 16, as
// functions-framework would; neither Node's printer nor the framework's prints the raw error.
const redactor = new SecretRedactor();
installCrashHandlers({
  component: 'pullsecret-adapter',
  redactor,
  exitCode: FUNCTION_CRASH_EXIT_CODE,
});

// Bad configuration prints one block naming each variable and exits 2 (no framework stack trace).
const { config, preconditions, driftCondition } = loadConfigOrExit(
  'pullsecret-adapter',
  'Adapter function',
  () => {
    const loaded = loadAdapterConfig(process.env);
    return {
      config: loaded,
      preconditions: compilePreconditions(loaded.preconditions),
      driftCondition: compileDriftCondition(loaded.driftReportedCondition),
    };
  },
);
// The export headers may carry an API key: a crash never prints one.
for (const value of Object.values(config.tracing.headers)) redactor.register(value);
const logger = createLogger({
  component: 'pullsecret-adapter',
  level: config.logLevel,
  format: config.logFormat,
  ...(config.projectId ? { projectId: config.projectId } : {}),
});
// Started while the instance boots; with export off this loads no SDK (see shared/tracing/start.ts).
const tracing = startTracing(config.tracing, {
  logger,
  ...(config.projectId ? { projectId: config.projectId } : {}),
});

// Clients are built on first use: most events need none (up to date, in flight).
const executions = lazily(async () => {
  const { v2, googleClientOptions } = await import('../../shared/gcp/lazy/cloud-run.js');
  const options = googleClientOptions(config.cloudRun);
  return new CloudRunExecutionReader(new v2.ExecutionsClient(options), {
    timeoutMs: config.cloudRunTimeoutMs,
    retry: config.cloudRunRetry,
    // The same failure reasons as the reporter's (exit code, timeout, OOM) for silent executions.
    tasks: new v2.TasksClient(options),
    logger,
  });
});
const launchQueue = lazily(async () => {
  const { CloudTasksClient, googleClientOptions } =
    await import('../../shared/gcp/lazy/cloud-tasks.js');
  return new CloudTasksLaunchQueue(
    new CloudTasksClient(googleClientOptions(config.launchQueue.tasks)),
    {
      target: {
        jobName: config.cloudRunJob,
        endpoint: config.launchQueue.cloudRunEndpoint,
        serviceAccountEmail: config.launchQueue.launcherServiceAccount,
      },
      timeoutMs: config.cloudRunTimeoutMs,
      retry: config.cloudRunRetry,
      logger,
    },
  );
});
const queue: LaunchQueue = {
  enqueue: async (task, request) => (await launchQueue()).enqueue(task, request),
  enqueueBatch: async (task, batch) => (await launchQueue()).enqueueBatch(task, batch),
  inspect: async (task) => (await launchQueue()).inspect(task),
  cancel: async (task) => (await launchQueue()).cancel(task),
};
const lookup: ExecutionReader = {
  read: async (execution) => (await executions()).read(execution),
};

let handler: ReturnType<typeof createAdapterHandler> | undefined;
function instanceHandler(): ReturnType<typeof createAdapterHandler> {
  handler ??= createAdapterHandler({
    hyperfleet: new HyperFleetClient(config.hyperfleet, {
      auth: authProviderFor(config.hyperfleet.auth),
      logger,
      userAgent: 'pullsecret-adapter',
    }),
    launchQueue: {
      queue,
      name: config.launchQueue.name,
      perManagementCluster: config.launchQueue.perManagementCluster,
      jobName: config.cloudRunJob,
    },
    lookup,
    preconditions,
    driftCondition,
    settings: config.decision,
    namespaceLayout: config.namespaceLayout,
    pullSecret: {
      specPath: config.pullSecretSpecPath,
      additionalSpecPath: config.pullSecretAdditionalSpecPath,
      ...(config.defaultPullSecretVersion
        ? { defaultVersion: config.defaultPullSecretVersion }
        : {}),
    },
    logger,
  });
  return handler;
}

// Retries stay bounded even where the subscription has no dead-letter policy (Eventarc's).
const bounded = withBoundedRetries((event) => instanceHandler()(event), {
  settings: config.retryBounds,
  logger,
  describe: (event) => {
    const decoded = decodeIncomingEvent(event);
    return decoded.kind === 'cluster' ? { cluster_id: decoded.event.clusterId } : {};
  },
});

// The fleet-requests topic's messages (Secret Manager's notifications on the default pull secret,
// the fleet command's resync requests) arrive at the same function: each becomes a batch launch.
let fleetHyperfleet: HyperFleetClient | undefined;
const fleetDeps = (): FleetRequestDependencies => {
  fleetHyperfleet ??= new HyperFleetClient(config.hyperfleet, {
    auth: authProviderFor(config.hyperfleet.auth),
    logger,
    userAgent: 'pullsecret-adapter',
  });
  const api = fleetHyperfleet;
  return {
    queue,
    queueName: config.launchQueue.name,
    countClusters: async () => (await api.listClusters({ page: 1, size: 1 })).total,
    newestEnabledVersion: async (secret) => {
      const { SecretManagerServiceClient, googleClientOptions } =
        await import('../../shared/gcp/lazy/secret-manager.js');
      const client = new SecretManagerServiceClient(googleClientOptions(config.secretManager));
      try {
        const [versions] = await client.listSecretVersions(
          { parent: secret, filter: 'state:ENABLED' },
          { timeout: config.cloudRunTimeoutMs },
        );
        const numbers = versions
          .map((v) => Number(v.name?.split('/').pop()))
          .filter(Number.isInteger);
        return numbers.length > 0 ? Math.max(...numbers) : undefined;
      } finally {
        await client.close();
      }
    },
    settings: {
      pullSecret: {
        specPath: config.pullSecretSpecPath,
        additionalSpecPath: config.pullSecretAdditionalSpecPath,
        ...(config.defaultPullSecretVersion
          ? { defaultVersion: config.defaultPullSecretVersion }
          : {}),
      },
      clustersPerTask: config.batchClustersPerTask,
      taskTimeoutMs: config.batchTaskTimeoutMs,
    },
    logger,
  };
};

// Spans are flushed before the answer: Cloud Run throttles the CPU once an event is answered.
functions.cloudEvent('adapter', async (event: CloudEventV1<unknown>) => {
  const handle = await tracing;
  try {
    const message = pubsubMessageOf(event);
    const fleet = message && fleetMessageOf(message);
    if (fleet) {
      await withDeliveryDeadline(config.deliveryBudgetMs, () =>
        handleFleetMessage(fleet, fleetDeps()),
      );
      return;
    }
    await withDeliveryDeadline(config.deliveryBudgetMs, () => bounded(event));
  } finally {
    await handle.flush();
  }
});
