import type { Replication } from '../config/replication';
import { InvalidReplicationError } from './invalid-replication';

/** What the operator decided (the job's environment) about where pull secrets may live. */
export interface ReplicationRules {
  /** REPLICATION_POLICY and KMS_KEY_NAME: every cluster that asks for nothing. */
  readonly fleet: Replication;
  /** ALLOWED_REPLICATION_LOCATIONS: the regions a cluster may ask for; empty, none may. */
  readonly allowed: readonly string[];
  /** Where the spec asks (REPLICATION_LOCATIONS_SPEC_PATH), for messages. */
  readonly specPath: string;
}

/**
 * The replication a new secret gets: the fleet's when the cluster asks for nothing, else the
 * requested regions, each allowed by the operator, with the fleet's CMEK key. Throws InvalidReplicationError naming what was asked, what is allowed and
 * who can change what. Pure: the organization policy and the existing secret are checked by the
 * caller (resolve-replication.ts).
 */
export function replicationFor(
  requested: readonly string[] | undefined,
  rules: ReplicationRules,
): Replication {
  if (requested === undefined) return rules.fleet;
  const asked = `The cluster asks for its pull secret to be replicated to ${requested.join(', ')} (${rules.specPath})`;
  if (rules.allowed.length === 0)
    throw new InvalidReplicationError(
      `${asked}, but this deployment allows no per-cluster replication locations: the operator must list the regions clusters may choose in ALLOWED_REPLICATION_LOCATIONS (Terraform job.allowed_replication_locations). Until then, remove the field to use the fleet's default replication. Nothing was written.`,
    );
  const refused = requested.filter((location) => !rules.allowed.includes(location));
  if (refused.length > 0)
    throw new InvalidReplicationError(
      `${asked}; ${refused.join(', ')} ${refused.length === 1 ? 'is' : 'are'} not allowed. Allowed locations: ${rules.allowed.join(', ')}. Choose among them in the cluster spec, or ask the operator to add ${refused.join(', ')} to ALLOWED_REPLICATION_LOCATIONS. Nothing was written.`,
    );
  // The fleet's CMEK key goes with the replicas: a key with {location} names one per region; a
  // key with a fixed location cannot serve other regions, which the job's configuration refuses at
  // start for every allowed region (fleetKeyServesAllowed, config/replication-env.ts).
  const key = rules.fleet.kmsKeyName;
  return {
    kind: 'user-managed',
    locations: [...requested],
    ...(key !== undefined ? { kmsKeyName: key } : {}),
  };
}
