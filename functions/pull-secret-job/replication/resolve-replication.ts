import type { Logger } from '../../../shared/logging/logger';
import type { JobConfig } from '../config/config';
import type { Replication } from '../config/replication';
import { isOurSecretManagerSecret } from '../config/labels';
import type { SecretStore } from '../secret-manager/secret-store';
import { replicationMismatch } from './existing-replication';
import { InvalidReplicationError } from './invalid-replication';
import { judgeLocations } from './location-policy';
import type { LocationPolicyReader } from './org-policy-client';
import { requestedLocations } from './requested-locations';
import { replicationFor } from './replication-rules';

/**
 * The replication of this run's secret, before anything is written: the fleet's unless the
 * cluster spec asks for regions; then the request is checked against the operator's allow list
 * and the fleet's CMEK key (replication-rules.ts), the tenant project's effective
 * gcp.resourceLocations policy where the job can read it (location-policy.ts), and the existing
 * secret's replication (existing-replication.ts). Any refusal throws InvalidReplicationError.
 */
export async function resolveReplication(
  config: Pick<
    JobConfig,
    'replication' | 'replicationRequests' | 'projectId' | 'secretId' | 'clusterId'
  >,
  cluster: unknown,
  ports: {
    readonly secretStore: Pick<SecretStore, 'getSecret'>;
    readonly locationPolicy?: LocationPolicyReader;
    readonly log: Logger;
  },
): Promise<Replication> {
  const { specPath, allowed } = config.replicationRequests;
  const requested = cluster === undefined ? undefined : requestedLocations(cluster, specPath);
  const replication = replicationFor(requested, { fleet: config.replication, allowed, specPath });
  if (replication.kind !== 'user-managed' || requested === undefined) return replication;
  await checkOrganizationPolicy(config.projectId, requested, ports);
  const secretPath = `projects/${config.projectId}/secrets/${config.secretId}`;
  const existing = await ports.secretStore.getSecret(secretPath);
  // Another's secret is refused by the ownership rule later, with its own reason.
  const mismatch =
    existing && isOurSecretManagerSecret(existing.labels, config.clusterId)
      ? replicationMismatch(existing.replication, replication, secretPath)
      : undefined;
  if (mismatch) throw new InvalidReplicationError(mismatch);
  ports.log.info(`Pull secret replicated to the cluster's regions: ${requested.join(', ')}`, {
    phase: 'resolve',
    operation: 'choose-replication',
    replication_locations: requested.join(','),
  });
  return replication;
}

async function checkOrganizationPolicy(
  projectId: string,
  requested: readonly string[],
  ports: { readonly locationPolicy?: LocationPolicyReader; readonly log: Logger },
): Promise<void> {
  if (!ports.locationPolicy) return;
  const fields = { phase: 'resolve', operation: 'read-location-policy', gcp_project: projectId };
  const answer = await ports.locationPolicy(projectId);
  if (answer.kind === 'unreadable') {
    ports.log.warn(
      `Could not read the organization policy gcp.resourceLocations of project ${projectId} (${answer.why}); going by ALLOWED_REPLICATION_LOCATIONS alone. Secret Manager still enforces the policy when it creates the secret. Granting the job orgpolicy.policy.get on the project turns this check on.`,
      fields,
    );
    return;
  }
  const verdict = judgeLocations(answer.rules, requested);
  if (verdict.denied.length > 0)
    throw new InvalidReplicationError(
      `The cluster asks for its pull secret to be replicated to ${requested.join(', ')}, but the organization policy gcp.resourceLocations of project ${projectId} does not allow ${verdict.denied
        .map(({ location, by }) => `${location} (${by})`)
        .join(
          '; ',
        )}. Choose regions the policy allows in the cluster spec, or ask the project's organization administrator to allow them. Nothing was written.`,
    );
  if (verdict.undecided.length > 0)
    ports.log.info(
      `The organization policy gcp.resourceLocations of project ${projectId} names value groups the job does not expand; Secret Manager decides for ${verdict.undecided.join(', ')} when it creates the secret`,
      fields,
    );
}
