import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import type { JobResult } from '../../../shared/job-result';
import type { Logger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import { pullSecretFingerprint } from '../../../shared/pull-secret/fingerprint';
import { pullSecretBytes } from '../../../shared/pull-secret/merge';
import { parsePullSecret } from '../../../shared/pull-secret/validate';
import type { ClusterSecrets } from '../kubernetes/cluster-secrets';
import type { JobConfig } from '../config/config';
import {
  deleteSecretManagerSecret,
  type DeleteOutcome,
} from '../secret-manager/delete-pull-secret';
import {
  claimFor,
  recheck,
  recheckIn,
  isLost,
  lostClaimResult,
  type LostClaim,
} from '../claim/job-claim';
import { describeFailure } from './job-outcome';
import { kubernetesLabels, secretManagerLabels } from '../config/labels';
import { resolvePullSecret } from './resolve-pull-secret';
import type { SecretStore } from '../secret-manager/secret-store';
import { cleanPlaces } from '../places/clean-places';
import { placeSecret } from '../places/place-secret';
import { targetPlace, type PlaceContext } from '../places/place-context';
import type { KeptPlace, RemovedPlace } from '../places/remove-places';
import {
  cleanedSentence,
  cleanedSummary,
  kubernetesSummary,
  removalSummary,
  secretManagerSummary,
  summarise,
} from './result-summary';
import type { KubernetesOutcome } from '../kubernetes/sync-kubernetes';
import {
  syncSecretManager,
  type SecretManagerOutcome,
} from '../secret-manager/sync-secret-manager';
import {
  copiesToTenant,
  keepDefaultOutOfTenant,
  pullSecretOrigin,
  sourceVersionPath,
  type PullSecretOrigin,
} from './tenant-copy';
import {
  requireKnownCluster,
  requireOwnPlace,
  retainedSecretWarning,
  secretManagerDisposal,
} from './unknown-cluster';
import { withPhaseSpan } from '../telemetry/open-spans';
import { kubernetesPhaseAttributes, markPhaseFailed } from '../telemetry/job-trace';

/** The ports the job talks through; built by main.ts, faked nowhere (tests use the emulators). */
export interface JobDependencies {
  readonly secretStore: SecretStore;
  /** Built on first use, so runs without a Kubernetes phase never load its client. */
  readonly clusterSecrets: (managementCluster: string) => Promise<ClusterSecrets>;
  /** Present when HYPERFLEET_API_BASE_URL is configured (pull secret from the cluster spec). */
  readonly hyperfleet?: HyperFleetApi;
  readonly redactor?: SecretRedactor;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/** What a phase run accumulates; turned into the JobResult at the end, success or not. */
interface Progress {
  phases: JobResult['phases'];
  durations: Record<string, number>;
  fingerprint?: string;
  source?: PullSecretOrigin;
  stored?: SecretManagerOutcome;
  pushed?: KubernetesOutcome;
  removed?: DeleteOutcome;
  /** Earlier places ours was removed from (a move, or a delete's other places). */
  cleaned?: readonly RemovedPlace[];
  /** Earlier places left as they are (a newer generation's, or on an unconfigured cluster). */
  kept?: readonly KeptPlace[];
}

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
      ...(progress.source ? { pull_secret_source: progress.source } : {}),
      ...(progress.stored ? { secret_manager: secretManagerSummary(progress.stored) } : {}),
      ...(progress.pushed ? { kubernetes: kubernetesSummary(progress.pushed, config) } : {}),
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
      requireOwnPlace(config.clusterId, config.kubernetes.namespace, config.kubernetes.secretName);
    }
    const done =
      config.operation === 'delete'
        ? await removePullSecret(config, deps, options, log, progress)
        : await applyPullSecret(config, deps, options, log, progress);
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

async function applyPullSecret(
  config: JobConfig,
  deps: JobDependencies,
  options: { dryRun: boolean },
  log: Logger,
  progress: Progress,
): Promise<string | LostClaim> {
  if (!config.pullSecretSource) throw new Error('no pull secret source is configured');
  const source = config.pullSecretSource;
  const resolved = await withPhaseSpan('job.resolve', {}, () =>
    resolvePullSecret(config.clusterId, source, config.additionalSpecPath, {
      secretStore: deps.secretStore,
      ...(deps.hyperfleet ? { hyperfleet: deps.hyperfleet } : {}),
    }),
  );
  deps.redactor?.registerPullSecret(resolved.original);
  if (resolved.additional !== undefined) deps.redactor?.registerPullSecret(resolved.additional);
  const original = parsePullSecret(resolved.original, 'pull secret');
  const additional =
    resolved.additional === undefined
      ? undefined
      : parsePullSecret(resolved.additional, 'additional pull secret');
  const data = pullSecretBytes(resolved.original, original, additional);
  deps.redactor?.registerPullSecret(data.toString('utf8'));
  progress.fingerprint = pullSecretFingerprint(data);
  progress.source = pullSecretOrigin(resolved.from);
  log.info('Pull secret validated', {
    phase: 'validate',
    operation: 'validate-pull-secret',
    pull_secret_source: resolved.from,
    additional_pull_secret: additional !== undefined,
    pull_secret_sha256_prefix: progress.fingerprint,
    bytes: data.length,
  });

  const labels = secretManagerLabels(config);
  const claimStarted = Date.now();
  const claim = await claimFor(
    config,
    deps.secretStore,
    { dryRun: options.dryRun, logger: log },
    {
      labels,
      replication: config.replication,
      ...(config.kubernetes ? { place: targetPlace(config.kubernetes) } : {}),
    },
  );
  progress.durations.claim = Date.now() - claimStarted;
  if (isLost(claim)) return claim;
  const smStarted = Date.now();
  progress.phases.push('secret-manager');
  const target = {
    projectId: config.projectId,
    secretId: config.secretId,
    clusterId: config.clusterId,
    labels,
    replication: config.replication,
    ...(config.retention ? { retention: config.retention } : {}),
  };
  const syncOptions = {
    logger: log,
    retry: config.retry,
    dryRun: options.dryRun,
    ...(claim?.kind === 'claimed' ? { claimed: claim.secret } : {}),
  };
  // The platform default goes to the management cluster only, unless copying is opted in.
  const stored = await withPhaseSpan('secretmanager.sync', {}, () =>
    copiesToTenant(config, resolved.from)
      ? syncSecretManager(deps.secretStore, target, data, syncOptions)
      : keepDefaultOutOfTenant(
          deps.secretStore,
          target,
          { parsed: original, bytes: data },
          syncOptions,
        ),
  );
  progress.stored = stored;
  progress.durations.secret_manager = Date.now() - smStarted;

  if (config.kubernetes) {
    // No claim re-check before the write: the generation stamp keeps it from undoing newer work,
    // and the one read after it (after-write.ts) re-checks the claim and withdraws if need be.
    const k8sStarted = Date.now();
    progress.phases.push('kubernetes');
    const kubernetes = config.kubernetes;
    const placed = await withPhaseSpan(
      'kubernetes.sync',
      kubernetesPhaseAttributes(kubernetes),
      async (span) => {
        const outcome = await placeSecret(placeContext(config, kubernetes, deps, log, options), {
          labels: kubernetesLabels(config),
          dockerConfigJson: data,
          gcpSecretPath: sourceVersionPath(stored, source),
          claimed: claim?.kind === 'claimed',
        });
        if (outcome !== 'gone' && 'failure' in outcome && outcome.failure)
          markPhaseFailed(span, outcome.failure);
        return outcome;
      },
    );
    progress.durations.kubernetes = Date.now() - k8sStarted;
    if (placed === 'gone') return { kind: 'superseded' };
    progress.pushed = placed.pushed;
    if ('lost' in placed) {
      // The Secret just written, removed again because a delete took the work over meanwhile.
      if (placed.withdrawn) progress.cleaned = [placed.withdrawn];
      return placed.lost;
    }
    progress.cleaned = placed.cleaned;
    progress.kept = placed.kept;
    if (placed.failure) throw placed.failure;
  }
  return summarise(stored, progress, config, options.dryRun);
}

/** Deletion: the Kubernetes Secret first (its consumer goes first), then Secret Manager. */
async function removePullSecret(
  config: JobConfig,
  deps: JobDependencies,
  options: { dryRun: boolean },
  log: Logger,
  progress: Progress,
): Promise<string | LostClaim> {
  const claimStarted = Date.now();
  const claim = await claimFor(config, deps.secretStore, { dryRun: options.dryRun, logger: log });
  progress.durations.claim = Date.now() - claimStarted;
  if (isLost(claim)) return claim;
  let kubernetes: DeleteOutcome['kubernetes'];
  if (config.kubernetes) {
    const k8sStarted = Date.now();
    progress.phases.push('kubernetes');
    const kubernetesConfig = config.kubernetes;
    const cleaned = await withPhaseSpan(
      'kubernetes.sync',
      kubernetesPhaseAttributes(kubernetesConfig),
      async (span) => {
        const outcome = await cleanPlaces(
          placeContext(config, kubernetesConfig, deps, log, options),
        );
        if (outcome.failure) markPhaseFailed(span, outcome.failure);
        return outcome;
      },
    );
    progress.durations.kubernetes = Date.now() - k8sStarted;
    if (cleaned.lost) return cleaned.lost;
    progress.cleaned = cleaned.cleaned;
    progress.kept = cleaned.kept;
    if (cleaned.target)
      kubernetes = {
        namespace: cleaned.target.place.namespace,
        name: cleaned.target.place.name,
        outcome: cleaned.target.outcome,
      };
    // The Secret Manager secret holds the record of the places left: it stays until they are clean.
    if (cleaned.failure) throw cleaned.failure;
  }
  const smStarted = Date.now();
  progress.phases.push('secret-manager');
  // Places kept on unconfigured clusters are recorded only on this secret: it stays (a tombstone).
  const disposal = secretManagerDisposal(config.onDelete, progress.kept);
  const retained = retainedSecretWarning(config.onDelete, progress.kept);
  if (retained)
    log.warn(retained, {
      phase: 'secret-manager',
      operation: 'delete-secret',
      reason: 'PlacesStillRecorded',
    });
  const secretManager = await withPhaseSpan('secretmanager.sync', {}, () =>
    deleteSecretManagerSecret(
      deps.secretStore,
      `projects/${config.projectId}/secrets/${config.secretId}`,
      disposal,
      log,
      options.dryRun,
      config.clusterId,
    ),
  );
  progress.durations.secret_manager = Date.now() - smStarted;
  progress.removed = { ...(kubernetes ? { kubernetes } : {}), secretManager };
  const k8s = kubernetes
    ? `Kubernetes Secret ${kubernetes.namespace}/${kubernetes.name} on management cluster ${config.kubernetes?.cluster ?? ''}: ${kubernetes.outcome}; ${cleanedSentence(progress.cleaned, progress.kept)}`
    : cleanedSentence(progress.cleaned, progress.kept);
  return `${options.dryRun ? 'Dry run: ' : ''}Pull secret cleanup: ${k8s}Secret Manager secret ${secretManager.secretPath}: ${secretManager.outcome}${secretManager.outcome === 'retained' ? ` (${secretManager.disabledVersions.length} versions disabled)` : ''}.`;
}

function placeContext(
  config: JobConfig,
  kubernetes: NonNullable<JobConfig['kubernetes']>,
  deps: JobDependencies,
  log: Logger,
  options: { dryRun: boolean },
): PlaceContext {
  return {
    kubernetes,
    clusterId: config.clusterId,
    ...(config.generation !== undefined ? { generation: config.generation } : {}),
    store: deps.secretStore,
    secretPath: `projects/${config.projectId}/secrets/${config.secretId}`,
    clusterSecrets: deps.clusterSecrets,
    recheckClaim: () => recheck(config, deps.secretStore, log),
    recheckIn: (current) => recheckIn(config, current, log),
    retry: config.retry,
    logger: log,
    dryRun: options.dryRun,
  };
}
