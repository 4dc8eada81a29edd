import type { Logger } from '../../../shared/logging/logger';
import { claimFor, isLost, type ClaimOutcome, type LostClaim } from '../claim/claim';
import type { JobConfig } from '../config/config';
import { secretManagerLabels } from '../config/labels';
import { cleanPlaces, retainedSecretWarning, secretManagerDisposal } from '../places/remove-places';
import {
  deleteSecretManagerSecret,
  type DeleteOutcome,
} from '../secret-manager/delete-pull-secret';
import { kubernetesPhaseAttributes, runPhase } from '../telemetry/job-trace';
import { cleanedSentence, placeContext, type JobDependencies, type Progress } from './run-context';

/** One delete run's context, as every phase of it needs it. */
interface RemoveRun {
  readonly config: JobConfig;
  readonly deps: JobDependencies;
  readonly options: { dryRun: boolean };
  readonly log: Logger;
  readonly progress: Progress;
}

/**
 * Deletion: the claim (a secret that does not exist is created as the tombstone, with the claim and
 * the ttl: secret-manager/delete-pull-secret.ts), the Kubernetes Secret (its consumer goes first), then Secret Manager.
 */
export async function removePullSecret(run: RemoveRun): Promise<string | LostClaim> {
  const { config, deps, options, log, progress } = run;
  const claim = await runPhase(progress, { name: 'claim' }, log, () =>
    claimFor(
      config,
      deps.secretStore,
      { dryRun: options.dryRun, logger: log },
      {
        labels: secretManagerLabels(config),
        replication: config.replication,
        ttlSeconds: config.tombstoneTtlSeconds,
      },
    ),
  );
  if (isLost(claim)) return claim;
  const removed = await removeFromKubernetes(run);
  if (removed && 'kind' in removed) return removed;
  const kubernetes = removed?.target;
  const secretManager = await removeFromSecretManager(run, claim);
  progress.removed = { ...(kubernetes ? { kubernetes } : {}), secretManager };
  const k8s = kubernetes
    ? `Kubernetes Secret ${kubernetes.namespace}/${kubernetes.name} on management cluster ${config.kubernetes?.cluster ?? ''}: ${kubernetes.outcome}; ${cleanedSentence(progress.cleaned, progress.kept)}`
    : cleanedSentence(progress.cleaned, progress.kept);
  return `${options.dryRun ? 'Dry run: ' : ''}Pull secret cleanup: ${k8s}Secret Manager secret ${secretManager.secretPath}: ${secretManager.outcome}${secretManagerDetail(secretManager)}.`;
}

/** What the Secret Manager outcome leaves behind, in words. */
function secretManagerDetail(outcome: DeleteOutcome['secretManager']): string {
  if (outcome.outcome === 'retained')
    return ` (${outcome.disabledVersions.length} versions disabled)`;
  if (outcome.expiresAfterSeconds === undefined) return '';
  return ` (${outcome.destroyedVersions.length} versions destroyed; kept as a tombstone with this delete's claim, so a lagging apply stands aside, until Secret Manager deletes it in ${outcome.expiresAfterSeconds} s)`;
}

/** The Kubernetes phase of a delete: every recorded place and the target cleaned. */
async function removeFromKubernetes({
  config,
  deps,
  options,
  log,
  progress,
}: RemoveRun): Promise<LostClaim | { target?: DeleteOutcome['kubernetes'] } | undefined> {
  const kubernetesConfig = config.kubernetes;
  if (!kubernetesConfig) return undefined;
  const cleaned = await runPhase(
    progress,
    {
      name: 'kubernetes',
      span: 'kubernetes.sync',
      attributes: kubernetesPhaseAttributes(kubernetesConfig),
      listed: 'kubernetes',
      failureOf: (outcome) => outcome.failure,
    },
    log,
    () => cleanPlaces(placeContext(config, kubernetesConfig, deps, log, options)),
  );
  progress.cleaned = cleaned.cleaned;
  progress.kept = cleaned.kept;
  // The Secret Manager secret holds the record of the places left: it stays until they are clean.
  if (cleaned.failure) throw cleaned.failure;
  if (!cleaned.target) return {};
  const { place, outcome } = cleaned.target;
  return { target: { namespace: place.namespace, name: place.name, outcome } };
}

/** The Secret Manager phase of a delete: a tombstone that expires, or retained while places are left. */
function removeFromSecretManager(
  { config, deps, options, log, progress }: RemoveRun,
  claim: ClaimOutcome | undefined,
): Promise<DeleteOutcome['secretManager']> {
  // Places kept on unconfigured clusters are recorded only on this secret: it stays, with no ttl.
  const disposal = secretManagerDisposal(config.onDelete, progress.kept);
  const retained = retainedSecretWarning(config.onDelete, progress.kept);
  if (retained)
    log.warn(retained, {
      phase: 'secret-manager',
      operation: 'delete-secret',
      reason: 'PlacesStillRecorded',
    });
  const phase = {
    name: 'secret_manager',
    span: 'secretmanager.sync',
    listed: 'secret-manager',
  } as const;
  return runPhase(progress, phase, log, () =>
    deleteSecretManagerSecret(
      deps.secretStore,
      `projects/${config.projectId}/secrets/${config.secretId}`,
      {
        onDelete: disposal,
        ttlSeconds: config.tombstoneTtlSeconds,
        createdByClaim: claim?.kind === 'claimed' && claim.secret === 'created',
      },
      { log, dryRun: options.dryRun, retry: config.retry },
      config.clusterId,
    ),
  );
}
