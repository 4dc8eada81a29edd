import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import type { JobResult } from '../../../shared/job-result';
import type { Logger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import { recheck, recheckIn } from '../claim/claim';
import type { JobConfig } from '../config/config';
import type { ClusterSecrets } from '../kubernetes/cluster-secrets';
import type { KubernetesOutcome } from '../kubernetes/sync-kubernetes';
import { describePlace } from '../places/place-record';
import type { KeptPlace, PlaceContext, RemovedPlace } from '../places/remove-places';
import type { DeleteOutcome } from '../secret-manager/delete-pull-secret';
import type { SecretStore } from '../secret-manager/secret-store';
import type { SecretManagerOutcome } from '../secret-manager/sync-secret-manager';
import type { LocationPolicyReader } from '../replication/org-policy-client';
import type { PullSecretOrigin } from './tenant-copy';

// What a run carries and how it is summed up: the ports it talks through (JobDependencies), what
// its phases accumulate (Progress), the context its Kubernetes phases work in (placeContext); then
// what the JobResult says of that progress (its secret_manager, kubernetes and cleaned_placements
// parts) and the sentences people read (the result's message). Not in run-pull-secret-job.ts: it
// imports the apply and the delete, which import this (one file would be an import cycle).

/** The ports the job talks through; built by main.ts, faked nowhere (tests use the emulators). */
export interface JobDependencies {
  readonly secretStore: SecretStore;
  /** Built on first use, so runs without a Kubernetes phase never load its client. */
  readonly clusterSecrets: (managementCluster: string) => Promise<ClusterSecrets>;
  /** Present when HYPERFLEET_API_BASE_URL is configured (pull secret from the cluster spec). */
  readonly hyperfleet?: HyperFleetApi;
  /** The tenant project's gcp.resourceLocations policy, read when a cluster asks for regions. */
  readonly locationPolicy?: LocationPolicyReader;
  readonly redactor?: SecretRedactor;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/** What a phase run accumulates; turned into the JobResult at the end, success or not. */
export interface Progress {
  phases: JobResult['phases'];
  durations: Record<string, number>;
  fingerprint?: string;
  source?: PullSecretOrigin;
  /** The platform default's version number the pull secret was read from, when it was. */
  defaultVersion?: string;
  stored?: SecretManagerOutcome;
  pushed?: KubernetesOutcome;
  removed?: DeleteOutcome;
  /** Earlier places ours was removed from (a move, or a delete's other places). */
  cleaned?: readonly RemovedPlace[];
  /** Earlier places left as they are (a newer generation's, or on an unconfigured cluster). */
  kept?: readonly KeptPlace[];
}

/** Where the pull secret came from, and the default's version number when it was the default. */
export const originSummary = (
  p: Progress,
): Pick<JobResult, 'pull_secret_source' | 'default_version'> => ({
  ...(p.source ? { pull_secret_source: p.source } : {}),
  ...(p.defaultVersion ? { default_version: p.defaultVersion } : {}),
});

/** What the Kubernetes phases need from this run. */
export function placeContext(
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

// The summary of what the run did.

type Target = Pick<JobConfig, 'kubernetes'>;
const clusterOf = (config: Target) =>
  config.kubernetes ? { management_cluster: config.kubernetes.cluster } : {};

export function removalSummary(
  removed: DeleteOutcome,
  config: Target,
): Pick<JobResult, 'secret_manager' | 'kubernetes'> {
  return {
    secret_manager: {
      secret_path: removed.secretManager.secretPath,
      secret: removed.secretManager.outcome,
      version: removed.secretManager.outcome === 'retained' ? 'disabled' : 'none',
      version_name: '',
      verified: true,
      destroyed_versions: [...removed.secretManager.destroyedVersions],
    },
    ...(removed.kubernetes
      ? {
          kubernetes: {
            ...clusterOf(config),
            namespace: removed.kubernetes.namespace,
            name: removed.kubernetes.name,
            outcome: removed.kubernetes.outcome,
          },
        }
      : {}),
  };
}

export function secretManagerSummary(
  outcome: SecretManagerOutcome,
): NonNullable<JobResult['secret_manager']> {
  return {
    secret_path: outcome.secretPath,
    secret: outcome.secret,
    version: outcome.version,
    version_name: outcome.versionName,
    verified: outcome.verified,
    destroyed_versions: [...outcome.destroyedVersions],
  };
}

/** The result's `kubernetes`: the Secret written, and a copy a layout migration kept; or nothing. */
export function kubernetesSummary(
  progress: { readonly pushed?: KubernetesOutcome; readonly kept?: readonly KeptPlace[] },
  config: Target,
): Pick<JobResult, 'kubernetes'> {
  const outcome = progress.pushed;
  if (!outcome) return {};
  const previous = progress.kept?.find((k) => k.why === 'previous-layout');
  return {
    kubernetes: {
      ...clusterOf(config),
      namespace: outcome.namespace,
      name: outcome.name,
      outcome: outcome.outcome,
      ...(outcome.resourceVersion ? { resource_version: outcome.resourceVersion } : {}),
      ...(previous ? { previous_layout_namespace: previous.place.namespace } : {}),
    },
  };
}

export function cleanedSummary(
  cleaned: readonly RemovedPlace[],
): NonNullable<JobResult['cleaned_placements']> {
  return cleaned.map(({ place, outcome }) => ({
    management_cluster: place.cluster,
    namespace: place.namespace,
    name: place.name,
    outcome,
  }));
}

/** "earlier places: ...; " for the places a move or a delete cleaned or left, else nothing. */
export function cleanedSentence(
  cleaned: readonly RemovedPlace[] | undefined,
  kept?: readonly KeptPlace[],
): string {
  const parts = (cleaned ?? []).map(({ place, outcome }) => `${describePlace(place)}: ${outcome}`);
  const left = unconfiguredSentence(kept);
  return `${parts.length ? `earlier places: ${parts.join(', ')}; ` : ''}${left ? `${left}; ` : ''}`;
}

/**
 * The earlier places left on management clusters no longer configured: said in the result (the
 * status message people read), not only in the job's WARNING, because a person must remove them.
 */
export function unconfiguredSentence(kept: readonly KeptPlace[] | undefined): string {
  const left = (kept ?? []).filter((k) => k.why === 'unconfigured');
  if (!left.length) return '';
  return `not removed, on management clusters no longer in MANAGEMENT_CLUSTERS (delete by hand, see the job's warning): ${left.map((k) => describePlace(k.place)).join(', ')}`;
}

/** One sentence for people: where the pull secret is now. */
export function summarise(
  stored: SecretManagerOutcome,
  progress: {
    pushed?: KubernetesOutcome;
    cleaned?: readonly RemovedPlace[];
    kept?: readonly KeptPlace[];
  },
  config: Target,
  dryRun: boolean,
): string {
  const { pushed } = progress;
  const cluster = config.kubernetes ? ` on management cluster ${config.kubernetes.cluster}` : '';
  const left = unconfiguredSentence(progress.kept);
  const moved = `${
    progress.cleaned?.length
      ? ` Removed from the earlier ${progress.cleaned.map(({ place, outcome }) => `${describePlace(place)} (${outcome})`).join(', ')}.`
      : ''
  }${left ? ` Earlier places ${left}.` : ''}`;
  if (dryRun) {
    const k8s = pushed
      ? ` Kubernetes Secret ${pushed.namespace}/${pushed.name}${cluster} would be ${pushed.outcome === 'unchanged' ? 'left unchanged' : pushed.outcome}.`
      : '';
    const version =
      stored.version === 'none'
        ? 'hold no version (platform default pull secret, not copied)'
        : `its version ${stored.version === 'added' ? 'added' : 'left unchanged'}`;
    return `Dry run: Secret Manager secret ${stored.secretPath} would be ${stored.secret === 'created' ? 'created' : 'reused'} and ${version}.${k8s}${moved}`;
  }
  const sm =
    stored.version === 'none'
      ? `Platform default pull secret in use, not copied to the tenant project (${stored.secretPath} holds only the claim and place records${stored.destroyedVersions.length ? `; earlier copies destroyed: ${stored.destroyedVersions.join(', ')}` : ''})`
      : `Pull secret stored in ${stored.versionName} (${stored.version === 'added' ? 'new version' : 'unchanged'})`;
  return pushed
    ? `${sm}; Kubernetes Secret ${pushed.namespace}/${pushed.name}${cluster} ${pushed.outcome}.${moved}`
    : `${sm}.`;
}
