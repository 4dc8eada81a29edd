import * as z from 'zod';

// What Secret Manager accepts, checked when the job starts so that a bad value fails with an error
// naming the variable instead of an INVALID_ARGUMENT from the first CreateSecret.

/**
 * CLUSTER_NAME becomes the label `cluster-name` on the Secret Manager secret and the Kubernetes
 * Secret, so it must be a value both accept: Secret Manager allows lowercase letters (any script),
 * digits, `_` and `-` (no `.`, no uppercase); Kubernetes allows ASCII only and wants a letter or
 * digit at both ends. It is rejected rather than converted: HyperFleet cluster names are DNS
 * labels, so anything else means a wrong input, and a converted label would match no cluster.
 */
export const clusterNameLabel = z.string().superRefine((name, ctx) => {
  if (!/^[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?$/.test(name))
    ctx.addIssue({
      code: 'custom',
      message: `"${name}" cannot be the value of the label cluster-name: Secret Manager and Kubernetes label values must be at most 63 lowercase letters, digits, "_" or "-", starting and ending with a letter or digit (no "." and no uppercase). Pass the HyperFleet cluster name, which always has this form`,
    });
});

/** `projects/P/locations/L/keyRings/R/cryptoKeys/K`: L is a KMS location or `{location}`. */
const KMS_KEY = /^projects\/[^/]+\/locations\/([^/]+)\/keyRings\/[^/]+\/cryptoKeys\/[^/]+$/;

/**
 * Where Secret Manager requires a CMEK key (resources.proto, CustomerManagedEncryption): in
 * `global` with automatic replication, in each replica's own location with user-managed replication
 * (hence `{location}`). Checked here so a wrong key fails at start, not at the first CreateSecret.
 */
export function kmsKeyProblem(
  key: string,
  replication: { kind: 'automatic' } | { kind: 'user-managed'; locations: string[] },
): string | undefined {
  const location = KMS_KEY.exec(key)?.[1];
  if (location === undefined) return undefined; // the format rule reports it
  if (replication.kind === 'automatic') {
    if (location === 'global') return undefined;
    return `is in location "${location}", but with REPLICATION_POLICY=automatic Secret Manager only accepts a key in "global". Use a key ring in location global (projects/P/locations/global/keyRings/R/cryptoKeys/K), or set REPLICATION_POLICY=user-managed:LOCATION[,LOCATION...] with a key per replica location`;
  }
  if (location === '{location}') return undefined;
  const others = replication.locations.filter((replica) => replica !== location);
  if (others.length === 0) return undefined;
  return `is in location "${location}", but each user-managed replica needs a key in its own location (${others.join(', ')} differ). Write {location} in place of the location (projects/P/locations/{location}/keyRings/R/cryptoKeys/K) and create that key ring and key in every replica location`;
}
