import type { v2 } from '@google-cloud/run';
import type { AdapterDependencies } from '../../functions/adapter/flows/dependencies';
import { CloudTasksLaunchQueue } from '../../functions/adapter/launch-queue/cloud-tasks-launch-queue';
import { CloudTasksClient, googleClientOptions } from '../../shared/gcp/lazy/cloud-tasks';
import type { DecisionSettings } from '../../functions/adapter/decision/decision';
import { CloudRunExecutionReader } from '../../shared/executions/cloud-run-execution-reader';
import type { Logger } from '../../shared/logging/logger';
import { TEST_JOB } from './cloud-run';

/** The adapter's decision timings for tests that drive its handler directly: long, so nothing
 * resyncs or backs off by itself while a test runs. */
export const TEST_DECISION_SETTINGS: DecisionSettings = {
  resyncIntervalMs: 3600_000,
  executionTimeoutMs: 600_000,
  retryBackoffBaseMs: 30_000,
  retryBackoffMaxMs: 600_000,
  permanentFailureRetryMs: 3600_000,
  heartbeatMs: 300_000,
  executionCheckAfterMs: 180_000,
  launchCheckAfterMs: 30_000,
  launchStartGraceMs: 300_000,
};

/** The default spec paths of the pull secret, as the adapter's config defaults them. */
export const TEST_PULL_SECRET_PATHS = {
  specPath: 'spec.pullSecret.data',
  additionalSpecPath: 'spec.pullSecret.additional',
} as const;

/** The launch queue tests create in the Cloud Tasks emulator, and the launcher identity. */
export const TEST_LAUNCH_QUEUE =
  'projects/demo-project/locations/us-central1/queues/pullsecret-launches';
export const TEST_LAUNCHER = 'pullsecret-launcher@demo-project.iam.gserviceaccount.com';

/**
 * The adapter's launch queue and execution reader over the emulators, wired as index.ts does:
 * tasks go to the Cloud Tasks emulator at `tasksHost`, which dispatches them to the Cloud Run
 * emulator's REST `jobs/JOB:run` at `cloudRunEndpoint`.
 */
export function adapterCloudPorts(
  options: {
    tasksHost: string;
    cloudRunEndpoint: string;
    executions: v2.ExecutionsClient;
    queue?: string;
  },
  logger: Logger,
): AdapterDependencies['launchQueue'] & { lookup: CloudRunExecutionReader } {
  const timeouts = { timeoutMs: 5000 };
  const retry = { attempts: 1, baseDelayMs: 10, maxDelayMs: 10 };
  const name = options.queue ?? TEST_LAUNCH_QUEUE;
  return {
    name,
    jobName: TEST_JOB,
    queue: new CloudTasksLaunchQueue(new CloudTasksClient(googleClientOptions(options.tasksHost)), {
      target: {
        jobName: TEST_JOB,
        endpoint: options.cloudRunEndpoint,
        serviceAccountEmail: TEST_LAUNCHER,
      },
      ...timeouts,
      retry,
      logger,
    }),
    lookup: new CloudRunExecutionReader(options.executions, { ...timeouts, retry }),
  };
}
