import type { v2 } from '@google-cloud/run';
import { CloudRunExecutionLookup } from '../../functions/adapter/cloud-run/cloud-run-execution-lookup';
import { CloudRunJobLauncher } from '../../functions/adapter/cloud-run/cloud-run-job-launcher';
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
  launchGraceMs: 60_000,
};

/** The default spec paths of the pull secret, as the adapter's config defaults them. */
export const TEST_PULL_SECRET_PATHS = {
  specPath: 'spec.pullSecret.data',
  additionalSpecPath: 'spec.pullSecret.additional',
} as const;

/** The adapter's Cloud Run ports (launcher and lookup) over a test's clients, wired as index.ts does. */
export function cloudRunAdapterPorts(
  clients: { jobs: v2.JobsClient; executions: v2.ExecutionsClient },
  logger: Logger,
): { launcher: CloudRunJobLauncher; lookup: CloudRunExecutionLookup } {
  const timeouts = { timeoutMs: 5000 };
  return {
    launcher: new CloudRunJobLauncher(clients.jobs, TEST_JOB, { ...timeouts, logger }),
    lookup: new CloudRunExecutionLookup(
      clients.executions,
      new CloudRunExecutionReader(clients.executions, {
        ...timeouts,
        retry: { attempts: 1, baseDelayMs: 10, maxDelayMs: 10 },
      }),
      TEST_JOB,
      timeouts,
    ),
  };
}
