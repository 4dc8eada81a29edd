import { createHash } from 'node:crypto';
import * as z from 'zod';
import {
  DEFAULT_NAMESPACE_TEMPLATE,
  namespaceOf,
  namespaceTemplate,
} from '../../../shared/pull-secret/namespace-layout';
import type { SimulatedAdapter } from '../../hyperfleet-api/store';

/**
 * The management cluster a cluster id lands on: a hash of the id picks one of `clusters`, so the
 * same cluster always lands on the same one (runs are reproducible) and many spread evenly.
 */
export function spreadOver(clusters: readonly string[], clusterId: string): string {
  if (clusters.length === 0) throw new Error('placement needs at least one management cluster');
  const digest = createHash('sha256').update(clusterId).digest();
  return clusters[digest.readUInt32BE(0) % clusters.length]!;
}

/**
 * The simulated placement adapter of seed 000: reports `data.managementCluster` (spread over the
 * local management clusters) and `data.namespace` (the HostedCluster namespace under the stack's
 * namespace layout, `clusters-{id}` by default). Its `namespace_template` setting changes with the
 * layout (POST /simulated-settings), as the real placement adapter is configured for it.
 */
export function simulatedPlacement(
  managementClusters: readonly string[],
  namespaceTemplate: string = DEFAULT_NAMESPACE_TEMPLATE,
): SimulatedAdapter {
  let template = namespaceTemplate;
  return {
    data: (cluster) => ({
      managementCluster: spreadOver(managementClusters, cluster.id),
      namespace: namespaceOf(template, cluster.id),
    }),
    configure: (settings) => {
      template = namespaceTemplateSettings.parse(settings).namespace_template;
    },
  };
}

const namespaceTemplateSettings = z.object({ namespace_template: namespaceTemplate });

/** The management cluster that LOCAL_SIMULATED_ADAPTERS' placement puts every cluster on. */
export const LOCAL_MANAGEMENT_CLUSTER = 'local-management-cluster';

/** Adapters the local stack simulates; placement reports the management namespace. */
export const LOCAL_SIMULATED_ADAPTERS: Record<string, SimulatedAdapter> = {
  validation: {},
  dns: {},
  placement: {
    data: (cluster) => ({
      namespace: `clusters-${cluster.id}`,
      managementCluster: LOCAL_MANAGEMENT_CLUSTER,
    }),
  },
};

/** The local stack's simulated adapters, placement spreading clusters over `managementClusters`. */
export function localSimulatedAdapters(
  managementClusters: readonly string[],
  namespaceTemplate?: string,
): Record<string, SimulatedAdapter> {
  return {
    validation: {},
    dns: {},
    placement: simulatedPlacement(managementClusters, namespaceTemplate),
  };
}
