import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import type { JobResult } from '../../../shared/job-result';
import type { Logger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import { recheck, recheckIn } from '../claim/claim';
import type { JobConfig } from '../config/config';
import type { ClusterSecrets } from '../kubernetes/cluster-secrets';
import type { KubernetesOutcome } from '../kubernetes/sync-kubernetes';
import type { KeptPlace, PlaceContext, RemovedPlace } from '../places/remove-places';
import type { DeleteOutcome } from '../secret-manager/delete-pull-secret';
import type { SecretStore } from '../secret-manager/secret-store';
import type { SecretManagerOutcome } from '../secret-manager/sync-secret-manager';
import type { PullSecretOrigin } from './tenant-copy';

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
export interface Progress {
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
