// Entry point of the reporter Cloud Run function: subscribed to the job results topic and to the
// execution-finished topic (log sink). Wiring only; configuration is validated at load. The Cloud
// Run and Secret Manager clients load on the first execution-finished event (job results need none).
import * as functions from '@google-cloud/functions-framework';
import { withDeliveryDeadline } from '../../shared/events/delivery-deadline';
import type { CloudEventV1 } from 'cloudevents';
import { loadConfigOrExit } from '../../shared/config/startup-failure';
import { withBoundedRetries } from '../../shared/events/bounded-retries';
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
import { SecretManagerClaimReader } from './claim/secret-manager-claim-reader';
import { loadReporterConfig } from './config/config';
import type { ClaimReader } from './claim/claim-reader';
import type { ExecutionReader } from '../../shared/executions/execution-reader';
import { decodeReport } from './report/decode-report';
import { createReporterHandler } from './report/handle-report';

// A crash prints one line without any secret or credential-shaped string and exits 16, as
// functions-framework would; neither Node's printer nor the framework's prints the raw error.
const redactor = new SecretRedactor();
installCrashHandlers({
  component: 'pullsecret-reporter',
  redactor,
  exitCode: FUNCTION_CRASH_EXIT_CODE,
});

// Bad configuration prints one block naming each variable and exits 2 (no framework stack trace).
const config = loadConfigOrExit('pullsecret-reporter', 'Reporter function', () =>
  loadReporterConfig(process.env),
);
// The export headers may carry an API key: a crash never prints one.
for (const value of Object.values(config.tracing.headers)) redactor.register(value);
const logger = createLogger({
  component: 'pullsecret-reporter',
  level: config.logLevel,
  format: config.logFormat,
  ...(config.projectId ? { projectId: config.projectId } : {}),
});
// The SDK loads only when spans are exported (OTEL_TRACES_EXPORTER=otlp); started once per instance.
const tracing = startTracing(config.tracing, {
  ...(config.projectId ? { projectId: config.projectId } : {}),
  logger,
});

// Cloud Run calls are retried a little in-process; Pub/Sub redelivery does the rest.
const cloudRunRetry = { attempts: 3, baseDelayMs: 500, maxDelayMs: 5000 };
const cloudRunReader = lazily(async () => {
  const { v2, googleClientOptions } = await import('../../shared/gcp/lazy/cloud-run.js');
  const options = googleClientOptions(config.cloudRun);
  return new CloudRunExecutionReader(new v2.ExecutionsClient(options), {
    timeoutMs: config.cloudRunTimeoutMs,
    retry: cloudRunRetry,
    tasks: new v2.TasksClient(options),
    logger,
  });
});
const executions: ExecutionReader = {
  read: async (name) => (await cloudRunReader()).read(name),
};

// Read to tell duplicates from claim holders (successful execution-finished events) and a stray
// execution's failure from the claim holder's (failures our status does not already name).
const secretManagerReader = lazily(async () => {
  const { SecretManagerServiceClient, googleClientOptions } =
    await import('../../shared/gcp/lazy/secret-manager.js');
  const client = new SecretManagerServiceClient(googleClientOptions(config.secretManager));
  return new SecretManagerClaimReader(client, {
    timeoutMs: config.cloudRunTimeoutMs,
    retry: cloudRunRetry,
  });
});
const claims: ClaimReader = {
  read: async (secretPath) => (await secretManagerReader()).read(secretPath),
};

let handler: ReturnType<typeof createReporterHandler> | undefined;
function instanceHandler(): ReturnType<typeof createReporterHandler> {
  handler ??= createReporterHandler({
    hyperfleet: new HyperFleetClient(config.hyperfleet, {
      auth: authProviderFor(config.hyperfleet.auth),
      logger,
      userAgent: 'pullsecret-reporter',
    }),
    executions,
    claims,
    jobName: config.cloudRunJob,
    logger,
  });
  return handler;
}

// Retries stay bounded even where the subscription has no dead-letter policy (Eventarc's).
const bounded = withBoundedRetries((event) => instanceHandler()(event), {
  settings: config.retryBounds,
  logger,
  describe: (event) => {
    const decoded = decodeReport(event, config.cloudRunJob);
    if (decoded.kind === 'job-result') return { cluster_id: decoded.result.cluster_id };
    if (decoded.kind === 'job-started') return { cluster_id: decoded.started.cluster_id };
    if (decoded.kind === 'execution-finished') return { execution: decoded.execution };
    return {};
  },
});

// Spans are flushed before answering: Cloud Run throttles the CPU once the response is sent.
functions.cloudEvent('reporter', async (event: CloudEventV1<unknown>) => {
  const handle = await tracing;
  try {
    await withDeliveryDeadline(config.deliveryBudgetMs, () => bounded(event));
  } finally {
    await handle.flush();
  }
});
