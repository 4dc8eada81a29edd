import type { Replication } from '../config/replication';

/** A secret's replication as Secret Manager answers it (its CMEK keys aside). */
export type StoredReplication =
  | { readonly kind: 'automatic' }
  | { readonly kind: 'user-managed'; readonly locations: readonly string[] };

/** Secret.replication as the Secret Manager client answers it (camelCase, unset fields null). */
export interface ClientReplication {
  readonly automatic?: object | null;
  readonly userManaged?: {
    readonly replicas?: { readonly location?: string | null }[] | null;
  } | null;
}

/** The stored replication of a client's answer; undefined when it names none. */
export function storedReplicationOf(
  replication: ClientReplication | null | undefined,
): StoredReplication | undefined {
  if (replication?.userManaged)
    return {
      kind: 'user-managed',
      locations: (replication.userManaged.replicas ?? []).flatMap((replica) =>
        replica.location ? [replica.location] : [],
      ),
    };
  return replication?.automatic ? { kind: 'automatic' } : undefined;
}

/**
 * Why an existing secret cannot serve a cluster's requested regions, or undefined when it can.
 * Secret Manager cannot change a secret's replication after creation (Secret.replication is
 * immutable: google/cloud/secretmanager/v1/resources.proto), and adding a version to a secret
 * replicated elsewhere would store the pull secret outside the regions the customer chose. So a
 * difference is refused, and the existing secret and its versions stay as they are: nothing is
 * lost, and the message says how to move it. Only a request is compared: with none, the secret
 * keeps whatever it was created with, as before per-cluster replication existed.
 */
export function replicationMismatch(
  stored: StoredReplication | undefined,
  wanted: Replication,
  secretPath: string,
): string | undefined {
  if (wanted.kind !== 'user-managed' || stored === undefined) return undefined;
  const wantedSet = [...new Set(wanted.locations)].sort();
  const storedSet = stored.kind === 'automatic' ? [] : [...new Set(stored.locations)].sort();
  if (stored.kind === 'user-managed' && storedSet.join(',') === wantedSet.join(','))
    return undefined;
  const now =
    stored.kind === 'automatic'
      ? 'automatic replication (Google-chosen locations)'
      : `replicas in ${storedSet.join(', ')}`;
  return (
    `The cluster asks for its pull secret to be replicated to ${wantedSet.join(', ')}, but ${secretPath} already exists with ${now}, and Secret Manager cannot change the replication of an existing secret. ` +
    `Nothing was written; the existing secret and the Kubernetes Secret are unchanged. To move it, delete ${secretPath} (the next run recreates it in the requested regions and writes the pull secret again), or set the spec back to the secret's current locations.`
  );
}
