import type { HyperFleetClient } from '../../../shared/hyperfleet/client';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import type { Logger } from '../../../shared/logging/logger';
import type { KubeReader } from '../../common/kube-admin';
import { decideHyperShift, type HyperShiftDecision, type Placement } from './decide';
import { hostedClusterManifest } from './hosted-cluster';
import { HostedClusters } from './hosted-clusters';
import { checkPullSecret } from './pull-secret-check';
import { hyperShiftReport, type HyperShiftOutcome } from './report';

export interface HyperShiftSimulatorDeps {
  readonly api: HyperFleetClient;
  /** Management cluster name -> a client with the HyperShift adapter's identity. */
  readonly clusters: ReadonlyMap<string, KubeReader>;
  /** The cluster a pull secret status without `management_cluster` refers to. */
  readonly defaultCluster: string;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/**
 * The simulated HyperShift adapter (seed 004): on every pass, for every cluster, decides from the
 * HyperFleet statuses, acts on HostedClusters in the management clusters, checks the pull secret
 * as HyperShift's controller does, and reports `hypershift` when the report changes.
 */
export class HyperShiftSimulator {
  private readonly hosted: HostedClusters;
  /** The last report sent per cluster (without its time): an unchanged one is not sent again. */
  private readonly sent = new Map<string, string>();

  constructor(private readonly deps: HyperShiftSimulatorDeps) {
    this.hosted = new HostedClusters(deps.clusters, deps.logger);
  }

  async tick(): Promise<void> {
    const clusters = await this.deps.api.listAllClusters();
    for (const cluster of clusters)
      await this.reconcile(cluster).catch((error: unknown) =>
        this.deps.logger.warn('HyperShift pass failed; retried on the next pass', {
          cluster_id: cluster.id,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    const present = new Set(clusters.map((c) => c.id));
    for (const id of this.sent.keys()) if (!present.has(id)) this.sent.delete(id);
  }

  private async reconcile(cluster: Cluster): Promise<void> {
    const decision = decideHyperShift({
      generation: cluster.generation,
      deleting: Boolean(cluster.deleted_time),
      statuses: await this.deps.api.listStatuses(cluster.id),
      knownClusters: [...this.deps.clusters.keys()],
      defaultCluster: this.deps.defaultCluster,
    });
    // Until its precondition holds, the adapter framework runs nothing for the cluster, so there
    // is nothing to report (and the pull secret adapter's own status writes are the only ones).
    if (decision.kind === 'wait') return;
    const outcome = await this.act(cluster, decision);
    const report = hyperShiftReport(cluster.generation, outcome, this.deps.now?.() ?? new Date());
    const { observed_time: _time, ...content } = report;
    const key = JSON.stringify(content);
    if (this.sent.get(cluster.id) === key) return;
    await this.deps.api.putStatus(cluster.id, report);
    this.sent.set(cluster.id, key);
    const available = report.conditions.find((c) => c.type === 'Available');
    const finalized = report.conditions.find((c) => c.type === 'Finalized');
    this.deps.logger.info('HyperShift status reported', {
      cluster_id: cluster.id,
      event: 'reported',
      generation: cluster.generation,
      available: available?.status,
      reason: available?.reason,
      detail: available?.message,
      ...(finalized ? { finalized: finalized.status } : {}),
    });
  }

  private async act(
    cluster: Cluster,
    decision: Exclude<HyperShiftDecision, { kind: 'wait' }>,
  ): Promise<HyperShiftOutcome> {
    switch (decision.kind) {
      case 'refuse':
        return { kind: 'refused', reason: decision.reason, message: decision.message };
      case 'finalize': {
        const removed = await this.hosted.removeAll(cluster.id);
        const left = await this.hosted.find(cluster.id);
        return left.length === 0
          ? { kind: 'finalized', removed }
          : { kind: 'finalizing', message: `${left.length} HostedCluster(s) still being deleted` };
      }
      case 'apply':
        return this.apply(cluster, decision.placement);
    }
  }

  private async apply(cluster: Cluster, placement: Placement): Promise<HyperShiftOutcome> {
    const manifest = hostedClusterManifest({
      clusterId: cluster.id,
      clusterName: cluster.name,
      namespace: placement.namespace,
      pullSecretName: placement.pullSecretName,
      spec: cluster.spec,
    });
    const failure = await this.hosted.apply(cluster.id, placement.managementCluster, manifest);
    if (failure) return { kind: 'apply-failed', message: failure };
    // A move: the HostedCluster follows the Secret; the one left in the old place goes.
    await this.hosted.removeAll(cluster.id, {
      keep: {
        managementCluster: placement.managementCluster,
        namespace: placement.namespace,
        name: cluster.name,
      },
    });
    const reader = this.deps.clusters.get(placement.managementCluster)!;
    const secret = await reader.get(
      `/api/v1/namespaces/${placement.namespace}/secrets/${placement.pullSecretName}`,
    );
    const check = checkPullSecret(secret, {
      managementCluster: placement.managementCluster,
      namespace: placement.namespace,
      name: placement.pullSecretName,
    });
    return { kind: 'applied', placement, hostedCluster: cluster.name, check };
  }
}
