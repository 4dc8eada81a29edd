import type { ClusterEvent } from '../../../shared/events/sentinel-event';
import type { AdapterStatus, Cluster } from '../../../shared/hyperfleet/schemas';
import { omitPaths } from '../../../shared/object-path';
import { statusesByAdapter } from '../../../shared/hyperfleet/cluster-facts';
import { hasPullSecretInSpec } from '../../../shared/pull-secret/pull-secret-reference';
import type { PreconditionContext } from './preconditions';
import type { PullSecretSettings } from '../../../shared/pull-secret/pull-secret-reference';

/**
 * What the preconditions see of an event. The cluster comes without its pull secrets (the values
 * at PULL_SECRET_SPEC_PATH and PULL_SECRET_ADDITIONAL_SPEC_PATH): an expression cannot read,
 * convert or echo bytes it never receives. `pullSecret.inSpec` and `pullSecret.additionalInSpec`
 * say whether the spec holds them, which is all a precondition needs to know.
 */
export function preconditionContext(
  cluster: Cluster,
  statuses: readonly AdapterStatus[],
  event: ClusterEvent,
  settings: PullSecretSettings,
): PreconditionContext {
  return {
    cluster: omitPaths(cluster, [settings.specPath, settings.additionalSpecPath]),
    statuses: statusesByAdapter(statuses),
    event: {
      id: event.eventId,
      type: event.type,
      source: event.source,
      clusterId: event.clusterId,
      generation: event.generation ?? null,
    },
    pullSecret: {
      inSpec: hasPullSecretInSpec(cluster, settings.specPath),
      additionalInSpec: hasPullSecretInSpec(cluster, settings.additionalSpecPath),
      defaultConfigured: settings.defaultVersion !== undefined,
    },
  };
}
