import type { AdapterStatusRequest, ConditionRequest } from '../../../shared/hyperfleet/schemas';
import type { Placement } from './decide';
import type { PullSecretCheck } from './pull-secret-check';

/** The adapter name HyperShift reports as; a required adapter for Reconciled in the local stack. */
export const HYPERSHIFT_ADAPTER = 'hypershift';

type Status = ConditionRequest['status'];
const condition = (type: string, status: Status, reason: string, message: string) => ({
  type,
  status,
  reason,
  message,
});

/** What happened for one cluster, as the report says it. */
export type HyperShiftOutcome =
  | { readonly kind: 'refused'; readonly reason: string; readonly message: string }
  | { readonly kind: 'apply-failed'; readonly message: string }
  | {
      readonly kind: 'applied';
      readonly placement: Placement;
      readonly hostedCluster: string;
      readonly check: PullSecretCheck;
    }
  | { readonly kind: 'finalized'; readonly removed: number }
  | { readonly kind: 'finalizing'; readonly message: string };

/**
 * The live status contract (Applied, Available, Health; Finalized while deleting) for an outcome,
 * as the adapter status patterns of the HyperFleet API say.
 */
export function hyperShiftReport(
  generation: number,
  outcome: HyperShiftOutcome,
  now: Date,
): AdapterStatusRequest {
  const base = { adapter: HYPERSHIFT_ADAPTER, observed_generation: generation };
  const report = (conditions: ConditionRequest[], data?: Record<string, unknown>) => ({
    ...base,
    observed_time: now.toISOString(),
    conditions,
    ...(data ? { data } : {}),
  });
  switch (outcome.kind) {
    case 'refused':
      return report([
        condition('Applied', 'False', outcome.reason, outcome.message),
        condition('Available', 'False', outcome.reason, outcome.message),
        condition('Health', 'False', outcome.reason, outcome.message),
      ]);
    case 'apply-failed':
      return report([
        condition('Applied', 'False', 'HostedClusterNotApplied', outcome.message),
        condition('Available', 'False', 'HostedClusterNotApplied', outcome.message),
        condition('Health', 'False', 'ManagementClusterError', outcome.message),
      ]);
    case 'applied': {
      const { placement, check } = outcome;
      const where = `${placement.managementCluster} ${placement.namespace}/${outcome.hostedCluster}`;
      const data = {
        management_cluster: placement.managementCluster,
        namespace: placement.namespace,
        hosted_cluster: outcome.hostedCluster,
        pull_secret_name: placement.pullSecretName,
      };
      const applied = condition(
        'Applied',
        'True',
        'HostedClusterApplied',
        `HostedCluster ${where} exists`,
      );
      return check.ok
        ? report(
            [
              applied,
              condition(
                'Available',
                'True',
                'PullSecretValid',
                `HostedCluster ${where} can pull images: Secret ${placement.pullSecretName} is a valid dockerconfigjson (${check.registries} registries)`,
              ),
              condition('Health', 'True', 'NoErrors', 'No degradation detected'),
            ],
            data,
          )
        : report(
            [
              applied,
              condition('Available', 'False', check.reason, check.message),
              condition(
                'Health',
                check.reason === 'PullSecretInvalid' ? 'False' : 'True',
                check.reason === 'PullSecretInvalid' ? check.reason : 'NoErrors',
                check.reason === 'PullSecretInvalid'
                  ? check.message
                  : 'The Secret may not be written yet; checked again on the next pass',
              ),
            ],
            data,
          );
    }
    case 'finalizing':
      return report([
        condition('Applied', 'True', 'Deleting', outcome.message),
        condition('Available', 'False', 'Deleting', outcome.message),
        condition('Health', 'True', 'NoErrors', 'Deletion in progress'),
        condition('Finalized', 'False', 'Deleting', outcome.message),
      ]);
    case 'finalized':
      return report([
        condition(
          'Applied',
          'False',
          'HostedClusterDeleted',
          'No HostedCluster of this cluster is left',
        ),
        condition('Available', 'False', 'Deleted', 'The cluster is being deleted'),
        condition('Health', 'True', 'NoErrors', 'Cleanup completed'),
        condition(
          'Finalized',
          'True',
          'CleanupConfirmed',
          `HostedClusters removed from every management cluster (${outcome.removed} deleted in this pass)`,
        ),
      ]);
  }
}
