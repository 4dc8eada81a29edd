import { TransientError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import {
  FOREIGN,
  NamespaceMissingError,
  WriteConflictError,
  type ClusterSecrets,
} from './cluster-secrets';
import { stampedGeneration, writtenByNewer } from './generation-stamp';

/** What removing one Kubernetes Secret did; `newer`: ours, but a newer generation wrote it (kept). */
export interface KubernetesRemoval {
  readonly namespace: string;
  readonly name: string;
  /** `foreign`: a Secret that is not ours stands there, left alone. */
  readonly outcome: 'deleted' | 'absent' | 'foreign' | 'newer';
}

const MAX_CONFLICT_RETRIES = 5;

/**
 * Deletes the Kubernetes Secret if and only if it is ours (labels managed-by, adapter and this
 * cluster's cluster-id) and no generation newer than `generation` wrote it (its stamp, read with
 * the resourceVersion the delete is conditional on); already gone is success; anything else there
 * is left alone and logged.
 */
export async function deleteKubernetesSecret(
  secrets: ClusterSecrets,
  namespace: string,
  name: string,
  clusterId: string,
  log: Logger,
  dryRun: boolean,
  generation?: number,
): Promise<KubernetesRemoval> {
  for (let conflicts = 0; conflicts <= MAX_CONFLICT_RETRIES; conflicts++) {
    let existing;
    try {
      existing = await secrets.probeOwn(namespace, name, clusterId);
    } catch (error) {
      if (error instanceof NamespaceMissingError) return { namespace, name, outcome: 'absent' };
      throw error;
    }
    if (!existing) {
      log.info('Kubernetes Secret already absent', {
        phase: 'kubernetes',
        operation: 'delete-secret',
      });
      return { namespace, name, outcome: 'absent' };
    }
    if (existing === FOREIGN) {
      log.warn(
        `Kubernetes Secret ${namespace}/${name} exists but is not ours (labels managed-by=hyperfleet, adapter=pullsecret, cluster-id=${clusterId}); left untouched`,
        { phase: 'kubernetes', operation: 'delete-secret', namespace, k8s_secret: name },
      );
      return { namespace, name, outcome: 'foreign' };
    }
    if (writtenByNewer(existing.annotations, generation)) {
      log.info(
        `Kubernetes Secret ${namespace}/${name} was written by generation ${stampedGeneration(existing.annotations)}, newer than ours (${generation}); left in place`,
        { phase: 'kubernetes', operation: 'delete-secret', namespace, k8s_secret: name },
      );
      return { namespace, name, outcome: 'newer' };
    }
    if (dryRun) return { namespace, name, outcome: 'deleted' };
    try {
      const deleted = await secrets.delete(namespace, name, existing.resourceVersion);
      log.info(deleted ? 'Kubernetes Secret deleted' : 'Kubernetes Secret already absent', {
        phase: 'kubernetes',
        operation: 'delete-secret',
      });
      return { namespace, name, outcome: deleted ? 'deleted' : 'absent' };
    } catch (error) {
      if (!(error instanceof WriteConflictError)) throw error;
      log.warn('Kubernetes Secret changed before deletion; reading it again', {
        phase: 'kubernetes',
        operation: 'delete-secret',
      });
    }
  }
  // Ours is still there: never report it absent (the caller would forget the place). Transient:
  // whoever keeps changing it stops, and the next execution removes it.
  throw new TransientError(
    `Kubernetes Secret ${namespace}/${name} kept changing while we deleted it (${MAX_CONFLICT_RETRIES + 1} conflicts); it is still there and stays recorded. The next execution removes it.`,
    'KubernetesConflict',
  );
}
