import { readPath } from '../object-path';
import type { Cluster } from './schemas';

/**
 * The cluster's GCP project, where its pull secret is stored: the current spec's
 * `spec.platform.gcp.projectID`, or the older `spec.gcp.projectId`. The adapter passes it to the
 * job as GCP_PROJECT_ID; `pull-secret doctor --all-projects` checks each one the clusters name.
 */
export function gcpProjectOf(cluster: Pick<Cluster, 'spec'>): string | undefined {
  return [
    readPath(cluster.spec, 'platform.gcp.projectID'),
    readPath(cluster.spec, 'gcp.projectId'),
  ].find((v): v is string => typeof v === 'string' && v !== '');
}
