// Entry point of the adapter Cloud Run function (CloudEvent signature, Eventarc/Pub/Sub trigger).
// Wiring only: configuration is validated when the module loads; clients are built on first use,
// and the Cloud Run client only on the first launch (most events need none: up to date, in flight).
import * as functions from '@google-cloud/functions-framework';
import type { CloudEventV1 } from 'cloudevents';
import { googleClientOptions } from '../../shared/gcp/client-options';
import { lazily } from '../../shared/lazily';
import { HyperFleetClient } from '../../shared/hyperfleet/client';
import { authProviderFor } from '../../shared/hyperfleet/config';
import { createLogger } from '../../shared/logging/logger';
import { CloudRunJobLauncher } from './cloud-run-job-launcher';
import { loadAdapterConfig } from './config';
import { createAdapterHandler } from './handle-event';
import type { JobLauncher } from './job-launcher';
import { compilePreconditions } from './preconditions';

const config = loadAdapterConfig(process.env);
const preconditions = compilePreconditions(config.preconditions);
const logger = createLogger({
  component: 'pullsecret-adapter',
  level: config.logLevel,
  format: config.logFormat,
  ...(config.projectId ? { projectId: config.projectId } : {}),
});

// Cloud Run calls are retried a little in-process; Pub/Sub redelivery does the rest.
const cloudRunRetry = { attempts: 3, baseDelayMs: 500, maxDelayMs: 5000 };
const cloudRunLauncher = lazily(async () => {
  const { v2 } = await import('@google-cloud/run');
  const client = new v2.JobsClient(googleClientOptions(config.cloudRunEmulatorHost));
  return new CloudRunJobLauncher(client, config.cloudRunJob, {
    timeoutMs: config.cloudRunTimeoutMs,
    retry: cloudRunRetry,
    logger,
  });
});
const launcher: JobLauncher = {
  launch: async (request) => (await cloudRunLauncher()).launch(request),
};

let handler: ReturnType<typeof createAdapterHandler> | undefined;
function instanceHandler(): ReturnType<typeof createAdapterHandler> {
  handler ??= createAdapterHandler({
    hyperfleet: new HyperFleetClient(config.hyperfleet, {
      auth: authProviderFor(config.hyperfleet.auth),
      logger,
    }),
    launcher,
    preconditions,
    settings: config.decision,
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

functions.cloudEvent('adapter', (event: CloudEventV1<unknown>) => instanceHandler()(event));
