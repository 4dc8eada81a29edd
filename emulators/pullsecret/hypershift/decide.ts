import * as z from 'zod';
import type { AdapterStatus } from '../../../shared/hyperfleet/schemas';

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * The fields of the pull secret adapter's status `data` HyperShift reads (docs/status-contract.md):
 * `management_cluster`, `namespace`, `pull_secret_name`; `kubernetes_secret` holds the same place
 * and fills in for a reporter that wrote only that object.
 */
const pullSecretDataSchema = z
  .looseObject({
    management_cluster: z.string().regex(DNS_LABEL).optional(),
    namespace: z.string().regex(DNS_LABEL).optional(),
    pull_secret_name: z.string().min(1).max(253),
    kubernetes_secret: z
      .looseObject({
        management_cluster: z.string().regex(DNS_LABEL).optional(),
        namespace: z.string().regex(DNS_LABEL).optional(),
      })
      .optional(),
  })
  .transform((data) => ({
    pull_secret_name: data.pull_secret_name,
    management_cluster: data.management_cluster ?? data.kubernetes_secret?.management_cluster,
    namespace: data.namespace ?? data.kubernetes_secret?.namespace,
  }))
  .refine((data) => data.namespace !== undefined, {
    message: 'namespace is missing',
    path: ['namespace'],
  });

/** Where the HostedCluster goes and which Secret it names. */
export interface Placement {
  readonly managementCluster: string;
  readonly namespace: string;
  readonly pullSecretName: string;
}

/** What the simulated HyperShift adapter does for one cluster at its current generation. */
export type HyperShiftDecision =
  /** The cluster is being deleted: remove our HostedClusters everywhere, then report Finalized. */
  | { readonly kind: 'finalize' }
  /** The pull secret is not Available=True at this generation yet (seed 004's precondition). */
  | { readonly kind: 'wait'; readonly message: string }
  /** The pull secret status cannot be acted on (unknown cluster, missing fields). */
  | { readonly kind: 'refuse'; readonly reason: string; readonly message: string }
  /** Create or update the HostedCluster there, remove it elsewhere, check the Secret. */
  | { readonly kind: 'apply'; readonly placement: Placement };

/**
 * Decides from the cluster and the adapters' statuses alone (no I/O): the precondition is our
 * `pullsecret` Available=True at the cluster's current generation; its `data` says where the
 * Secret is, and so where the HostedCluster must be.
 */
export function decideHyperShift(input: {
  readonly generation: number;
  readonly deleting: boolean;
  readonly statuses: readonly AdapterStatus[];
  readonly knownClusters: readonly string[];
  readonly defaultCluster: string;
}): HyperShiftDecision {
  if (input.deleting) return { kind: 'finalize' };
  const own = input.statuses.find((s) => s.adapter === 'pullsecret');
  const available = own?.conditions.find((c) => c.type === 'Available');
  if (!own || available?.status !== 'True' || own.observed_generation !== input.generation)
    return {
      kind: 'wait',
      message: `Waiting for pullsecret Available=True at generation ${input.generation} (now ${
        own
          ? `Available=${available?.status ?? 'absent'} at generation ${own.observed_generation}`
          : 'not reported'
      })`,
    };
  const data = pullSecretDataSchema.safeParse(own.data ?? {});
  if (!data.success)
    return {
      kind: 'refuse',
      reason: 'PullSecretStatusIncomplete',
      message: `The pullsecret status data lacks a valid ${data.error.issues.map((i) => i.path.join('.')).join(', ')}: HyperShift cannot know which Secret to use`,
    };
  // A single-cluster pull secret adapter may not name its cluster: that is the default one.
  const managementCluster = data.data.management_cluster ?? input.defaultCluster;
  if (!input.knownClusters.includes(managementCluster))
    return {
      kind: 'refuse',
      reason: 'UnknownManagementCluster',
      message: `Management cluster "${managementCluster}" is not one HyperShift runs on (known: ${input.knownClusters.join(', ')})`,
    };
  return {
    kind: 'apply',
    placement: {
      managementCluster,
      namespace: data.data.namespace!,
      pullSecretName: data.data.pull_secret_name,
    },
  };
}
