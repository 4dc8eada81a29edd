import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import type { ClusterSecrets } from '../kubernetes/cluster-secrets';
import type { JobConfig } from '../config/config';
import type { LostClaim } from '../claim/job-claim';
import { changePlaces, type readPlaces } from './place-record';
import type { Place } from './places';
import type { SecretMetadata } from '../secret-manager/secret-store';
import type { RemovalDependencies, RemovedPlace } from './remove-places';

/** What the Kubernetes phases need: the target, every cluster, and the record's secret. */
export interface PlaceContext {
  readonly kubernetes: NonNullable<JobConfig['kubernetes']>;
  readonly clusterId: string;
  /** This execution's generation, stamped on what it writes; undefined for direct runs. */
  readonly generation?: number;
  readonly store: PlaceRecordStore;
  readonly secretPath: string;
  readonly clusterSecrets: (managementCluster: string) => Promise<ClusterSecrets>;
  /** Re-reads the claim whenever a newer generation's trace is found. */
  readonly recheckClaim: () => Promise<LostClaim | undefined>;
  /** The claim re-check on a secret already read (the read after the Kubernetes write). */
  readonly recheckIn: (current: SecretMetadata | undefined) => LostClaim | undefined;
  readonly retry: RetryPolicy;
  readonly logger: Logger;
  readonly dryRun: boolean;
}
type PlaceRecordStore = Parameters<typeof readPlaces>[0];

/** Where this execution puts the Kubernetes Secret. */
export const targetPlace = (k: PlaceContext['kubernetes']): Place => ({
  cluster: k.cluster,
  namespace: k.namespace,
  name: k.secretName,
});

export function removalDeps(ctx: PlaceContext, during: 'move' | 'delete'): RemovalDependencies {
  return {
    clusterSecrets: ctx.clusterSecrets,
    clusters: ctx.kubernetes.clusters,
    clusterId: ctx.clusterId,
    ...(ctx.generation !== undefined ? { generation: ctx.generation } : {}),
    logger: ctx.logger,
    dryRun: ctx.dryRun,
    during,
  };
}

/** Forgets the places removed; `gone` (a newer delete removed the record) leaves nothing to do. */
export async function forget(ctx: PlaceContext, removed: readonly RemovedPlace[]): Promise<void> {
  if (ctx.dryRun || removed.length === 0) return;
  // `gone`: a newer delete removed the secret, and the record with it; nothing left to forget.
  await changePlaces(
    ctx.store,
    ctx.secretPath,
    { remove: removed.map((r) => r.place) },
    { logger: ctx.logger, retry: ctx.retry, clusterId: ctx.clusterId },
  );
}
