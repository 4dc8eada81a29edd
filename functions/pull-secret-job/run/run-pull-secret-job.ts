import type { JobResult } from '../../../shared/job-result';
import { lostClaimResult } from '../claim/claim';
import type { JobConfig } from '../config/config';
import { applyPullSecret } from './apply-pull-secret';
import { describeFailure } from './job-outcome';
import { removePullSecret } from './remove-pull-secret';
import {
  cleanedSummary,
  kubernetesSummary,
  originSummary,
  removalSummary,
  secretManagerSummary,
  type JobDependencies,
  type Progress,
} from './run-context';
import { requireKnownCluster, requireOwnPlace } from '../places/remove-places';

export type { JobDependencies };

/**
 * Runs one execution: resolve and validate the pull secret, store it in Secret Manager, push it to
 * the management cluster. Never throws: every failure becomes a failed JobResult with a reason, so
 * the caller can always print and publish one.
 */
export async function runPullSecretJob(
  config: JobConfig,
  deps: JobDependencies,
  options: { dryRun: boolean },
): Promise<JobResult> {
  const now = deps.now ?? (() => new Date());
  const started = Date.now();
  const progress: Progress = { phases: [], durations: {} };
  const log = deps.logger.child({
    cluster_id: config.clusterId,
    gcp_project: config.projectId,
    operation_kind: config.operation,
  });
  const base = {
    operation: config.operation,
    dry_run: options.dryRun,
    cluster_id: config.clusterId,
    ...(config.generation ? { generation: config.generation } : {}),
    ...(config.execution ? { execution: config.execution } : {}),
    ...(config.attempt ? { attempt: config.attempt } : {}),
    started_at: new Date(started).toISOString(),
  };
  const finish = (
    outcome: Pick<JobResult, 'outcome' | 'reason' | 'message' | 'failure_kind' | 'claim_holder'>,
  ): JobResult => {
    progress.durations.total = Date.now() - started;
    return {
      ...base,
      ...outcome,
      phases: progress.phases,
      ...(progress.fingerprint ? { pull_secret_sha256_prefix: progress.fingerprint } : {}),
      ...originSummary(progress),
      ...(progress.stored ? { secret_manager: secretManagerSummary(progress.stored) } : {}),
      ...kubernetesSummary(progress, config),
      ...(progress.removed ? removalSummary(progress.removed, config) : {}),
      ...(progress.cleaned?.length ? { cleaned_placements: cleanedSummary(progress.cleaned) } : {}),
      durations_ms: progress.durations,
      finished_at: now().toISOString(),
    };
  };
  try {
    // Only an apply is refused: nothing was ever written to an unknown cluster, so a delete drops
    // that target and still cleans every recorded place (cleanPlaces), else it could never end.
    if (config.kubernetes && config.operation === 'apply') {
      requireKnownCluster(config.kubernetes.cluster, config.kubernetes.clusters);
      requireOwnPlace(config.clusterId, config.kubernetes);
    }
    const done =
      config.operation === 'delete'
        ? await removePullSecret({ config, deps, options, log, progress })
        : await applyPullSecret({ config, deps, options, log, progress });
    if (typeof done !== 'string')
      return finish(
        lostClaimResult(
          done,
          progress.pushed ? 'kubernetes' : progress.stored ? 'secret-manager' : 'nothing',
        ),
      );
    log.info(done, {
      phase: 'completed',
      operation: 'completed',
      duration_ms: Date.now() - started,
    });
    return finish(
      config.operation === 'delete'
        ? { outcome: 'succeeded', reason: 'CleanupConfirmed', message: done }
        : { outcome: 'succeeded', reason: 'PullSecretProvisioned', message: done },
    );
  } catch (error) {
    const failure = describeFailure(error);
    log.error(failure.message, {
      phase: 'failed',
      operation: 'failed',
      reason: failure.reason,
      failure_kind: failure.failure_kind,
      duration_ms: Date.now() - started,
    });
    return finish({ outcome: 'failed', ...failure });
  }
}
