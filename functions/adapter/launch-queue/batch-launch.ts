import { createHash } from 'node:crypto';
import {
  selectorText,
  type BatchReason,
  type BatchSelector,
} from '../../../shared/batch/batch-request';
import { currentTraceparent } from '../../../shared/tracing/traceparent';
import { runJobOverrideEnv } from '../cloud-run/execution-overrides';
import type { RunJobHttpRequest, RunJobTarget } from './run-job-target';
import { runJobHttpRequestWith } from './run-job-target';

// A batch launch (shared/batch/batch-request.ts): one RunJob whose `taskCount` tasks share the
// selected clusters out, through the same launch queue as every other launch: paused with it,
// at its rate, retried by it, and named so a redelivered request launches once.

export interface BatchLaunch {
  readonly reason: BatchReason;
  readonly selector: BatchSelector;
  /** Tasks of the execution: one per BATCH_CLUSTERS_PER_TASK clusters, at least 1, at most 10,000. */
  readonly taskCount: number;
  /** The RunJob override `timeout` of each task: a batch's, not the job's per-cluster one. */
  readonly taskTimeoutSeconds: number;
  readonly specPath: string;
  readonly additionalSpecPath: string;
  /** The default pull secret version the clusters on the default get (a rotation pins the new one). */
  readonly defaultVersion?: string;
  /** What makes the launch unique: the notification's event and version for a rotation, the Pub/Sub message id for a resync. */
  readonly key: string;
}

/** Cloud Run's largest task count per execution (https://cloud.google.com/run/quotas, "Jobs"). */
export const MAX_TASK_COUNT = 10_000;

/** Tasks for `clusters` clusters at `perTask` each: at least one, at most Cloud Run's limit. */
export const batchTaskCount = (clusters: number, perTask: number): number =>
  Math.min(MAX_TASK_COUNT, Math.max(1, Math.ceil(clusters / perTask)));

/** `batch-REASON-HASH16`: every instance that receives the same request names the same task. */
export function batchTaskId(batch: Pick<BatchLaunch, 'reason' | 'selector' | 'key'>): string {
  const hash = createHash('sha256')
    .update(`${batch.reason}\n${selectorText(batch.selector)}\n${batch.key}`)
    .digest('hex')
    .slice(0, 16);
  return `batch-${batch.reason}-${hash}`;
}

/** The batch's env overrides: the selector and the references a per-cluster run needs, never secrets. */
export function batchEnv(
  batch: BatchLaunch,
  traceparent = currentTraceparent(),
): Record<string, string> {
  return {
    BATCH_SELECTOR: selectorText(batch.selector),
    BATCH_REASON: batch.reason,
    PULL_SECRET_SPEC_PATH: batch.specPath,
    PULL_SECRET_ADDITIONAL_SPEC_PATH: batch.additionalSpecPath,
    ...(batch.defaultVersion ? { PULL_SECRET_SECRET_VERSION: batch.defaultVersion } : {}),
    ...(traceparent ? { TRACEPARENT: traceparent } : {}),
  };
}

export function batchRunJobHttpRequest(
  batch: BatchLaunch,
  target: RunJobTarget,
): RunJobHttpRequest {
  return runJobHttpRequestWith(
    {
      containerOverrides: [{ env: runJobOverrideEnv(batchEnv(batch)) }],
      taskCount: batch.taskCount,
      timeout: `${batch.taskTimeoutSeconds}s`,
    },
    target,
  );
}
