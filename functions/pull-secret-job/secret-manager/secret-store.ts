import type { Replication } from '../config/replication';
import type { StoredReplication } from '../replication/existing-replication';

export type { Replication };

/** A secret's metadata, as far as ownership, claim and publication decisions need it. */
export interface SecretMetadata {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** The secret's etag (quoted, as the service gives it), for optimistic concurrency. */
  readonly etag: string;
  /** Version aliases, alias → version number (`current` is the job's: publish-version.ts). */
  readonly versionAliases: Readonly<Record<string, number>>;
  /** Where its data lives (immutable once created); absent when the answer did not say. */
  readonly replication?: StoredReplication;
}

/** What an UpdateSecret changes: only the fields given (its update mask). */
export interface SecretFields {
  readonly annotations?: Record<string, string>;
  /** The whole map: an alias left out is removed. */
  readonly versionAliases?: Record<string, number>;
}

/** The payload of one version, with the checksum the service reports. */
export interface VersionPayload {
  /** Full version name with its number, never the `latest` alias. */
  readonly name: string;
  readonly data: Buffer;
  readonly crc32c: number | undefined;
}

/** One version's number and state. */
export interface VersionSummary {
  readonly name: string;
  readonly number: number;
  readonly state: 'ENABLED' | 'DISABLED' | 'DESTROYED';
}

/**
 * The Secret Manager operations the job needs. `undefined` answers mean "not there"; every other
 * failure is thrown as an AdapterError (transient or permanent). Names are full resource names.
 */
export interface SecretStore {
  getSecret(name: string): Promise<SecretMetadata | undefined>;
  /**
   * Creates the secret and answers it as created (its etag); `exists` when another writer was
   * first. With `ttlSeconds`, Secret Manager deletes it by itself that long after (Secret.ttl; a
   * delete's tombstone).
   */
  createSecret(
    projectId: string,
    secretId: string,
    spec: {
      labels: Record<string, string>;
      annotations?: Record<string, string>;
      replication: Replication;
      ttlSeconds?: number;
    },
  ): Promise<SecretMetadata | 'exists'>;
  /**
   * Replaces the given fields if the secret's etag is still `etag`, in one UpdateSecret, and
   * answers the secret as written: `conflict` when another writer changed the secret since it was
   * read, `gone` when it was deleted meanwhile.
   */
  updateSecret(
    name: string,
    fields: SecretFields,
    etag: string,
  ): Promise<SecretMetadata | 'conflict' | 'gone'>;
  /** Reads a version (by number, alias or `latest`); undefined when it is absent or not enabled. */
  accessVersion(name: string): Promise<VersionPayload | undefined>;
  /** Adds a version once, without retrying: the caller decides how to retry without duplicates. */
  addVersion(secretName: string, data: Buffer, crc32c: number): Promise<{ name: string }>;
  /**
   * Every version of the secret, newest first; `filter` is Secret Manager's list filter (e.g.
   * `state:ENABLED`), applied by the service.
   */
  listVersions(secretName: string, filter?: string): Promise<VersionSummary[]>;
  destroyVersion(name: string): Promise<void>;
  disableVersion(name: string): Promise<void>;
  /**
   * Sets the secret's ttl (UpdateSecret, update_mask `ttl`): Secret Manager deletes it, with every
   * version, that long from now. `gone` when it no longer exists.
   */
  expireAfter(name: string, ttlSeconds: number): Promise<'updated' | 'gone'>;
}
