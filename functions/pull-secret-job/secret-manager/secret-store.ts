import type { Replication } from '../config/replication';

export type { Replication };

/** A secret's metadata, as far as ownership and claim decisions need it. */
export interface SecretMetadata {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** The secret's etag (quoted, as the service gives it), for optimistic concurrency. */
  readonly etag: string;
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
   * Creates the secret; `exists` when another writer created it first. With `ttlSeconds`, Secret
   * Manager deletes it by itself that long after (Secret.ttl; a delete's tombstone).
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
  ): Promise<'created' | 'exists'>;
  /**
   * Replaces the secret's annotations if its etag is still `etag`: `conflict` when another writer
   * changed the secret since it was read, `gone` when it was deleted meanwhile.
   */
  updateAnnotations(
    name: string,
    annotations: Record<string, string>,
    etag: string,
  ): Promise<'updated' | 'conflict' | 'gone'>;
  /** Reads a version (or `latest`); undefined when there is none enabled. */
  accessVersion(name: string): Promise<VersionPayload | undefined>;
  /** Adds a version once, without retrying: the caller decides how to retry without duplicates. */
  addVersion(secretName: string, data: Buffer, crc32c: number): Promise<{ name: string }>;
  listVersions(secretName: string): Promise<VersionSummary[]>;
  destroyVersion(name: string): Promise<void>;
  disableVersion(name: string): Promise<void>;
  /**
   * Sets the secret's ttl (UpdateSecret, update_mask `ttl`): Secret Manager deletes it, with every
   * version, that long from now. `gone` when it no longer exists.
   */
  expireAfter(name: string, ttlSeconds: number): Promise<'updated' | 'gone'>;
}
