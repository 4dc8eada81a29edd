import type { Cluster } from '../../../shared/hyperfleet/schemas';
import { hasPullSecretInSpec } from './cluster-facts';
import type { PullSecretReference } from '../cloud-run/execution-env';

/** Where the adapter finds pull secrets: the cluster spec, or a default Secret Manager version. */
export interface PullSecretSettings {
  readonly specPath: string;
  readonly additionalSpecPath: string;
  readonly defaultVersion?: string;
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
