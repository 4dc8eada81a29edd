import type { Cluster } from '../hyperfleet/schemas';
import { readPath } from '../object-path';
import type { PullSecretReference } from '../launch/execution-env';

/** Where the adapter finds pull secrets: the cluster spec, or a default Secret Manager version. */
export interface PullSecretSettings {
  readonly specPath: string;
  readonly additionalSpecPath: string;
  readonly defaultVersion?: string;
}

/** Whether the cluster's spec holds a pull secret at `path` (anything but absent, null or blank). */
export function hasPullSecretInSpec(cluster: Cluster, path: string): boolean {
  const value = readPath(cluster, path);
  return (
    value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '')
  );
}

/** The reference the execution gets: the cluster spec when it has one, else the default version. */
export function pullSecretReference(
  cluster: Cluster,
  settings: PullSecretSettings,
): PullSecretReference {
  return hasPullSecretInSpec(cluster, settings.specPath) || !settings.defaultVersion
    ? {
        source: 'cluster-spec',
        specPath: settings.specPath,
        additionalSpecPath: settings.additionalSpecPath,
      }
    : {
        source: 'secret-manager',
        version: settings.defaultVersion,
        additionalSpecPath: settings.additionalSpecPath,
      };
}
