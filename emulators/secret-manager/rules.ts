import { status } from '@grpc/grpc-js';
import { GrpcError } from '../common/grpc-error';

/** Secret Manager's documented limits, enforced as the service enforces them. */
export const MAX_PAYLOAD_BYTES = 65_536;
export const MAX_LABELS = 64;
/** Annotations: keys as documented on Secret.annotations, total size of keys and values < 16 KiB. */
export const MAX_ANNOTATIONS_BYTES = 16 * 1024;
const ANNOTATION_KEY = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;
const KMS_KEY = /^projects\/[^/]+\/locations\/([^/]+)\/keyRings\/[^/]+\/cryptoKeys\/[^/]+$/;
const REGION = /^[a-z]{2,20}-[a-z]{2,20}[0-9]{1,2}$/;
const SECRET_ID = /^[A-Za-z0-9_-]{1,255}$/;
const LABEL_KEY = /^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$/u;
const LABEL_VALUE = /^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$/u;
const PROJECT_PARENT = /^projects\/([^/]+)$/;
/** Secret.version_aliases keys: a letter first, then at most 62 letters, digits, `-` or `_`. */
const VERSION_ALIAS = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
/** "No more than 50 aliases can be assigned to a given secret" (Secret.version_aliases). */
export const MAX_VERSION_ALIASES = 50;

const invalid = (message: string) => new GrpcError(status.INVALID_ARGUMENT, message);

/** The project of a `projects/{project}` parent (id or number, as written). */
export function checkParent(parent: string | undefined): string {
  const project = PROJECT_PARENT.exec(parent ?? '')?.[1];
  if (project === undefined) {
    throw invalid(
      `Invalid resource field value in the request. parent [${parent ?? ''}] must be projects/{project}.`,
    );
  }
  return project;
}

export function checkSecretId(secretId: string | undefined): string {
  if (!secretId || !SECRET_ID.test(secretId)) {
    throw invalid(
      'Secret ID must be 1-255 characters of letters, numbers, underscores and hyphens.',
    );
  }
  return secretId;
}

export function checkLabels(labels: Record<string, string> | undefined): Record<string, string> {
  const entries = Object.entries(labels ?? {});
  if (entries.length > MAX_LABELS) throw invalid(`A secret can have at most ${MAX_LABELS} labels.`);
  for (const [key, value] of entries) {
    if (!LABEL_KEY.test(key) || Buffer.byteLength(key) > 128) {
      throw invalid(
        `Invalid label key [${key}]: keys must start with a lowercase letter and contain at most 63 lowercase letters, numbers, underscores or hyphens.`,
      );
    }
    if (!LABEL_VALUE.test(value) || Buffer.byteLength(value) > 128) {
      throw invalid(
        `Invalid value for label [${key}]: values may contain at most 63 lowercase letters, numbers, underscores or hyphens.`,
      );
    }
  }
  return Object.fromEntries(entries);
}

/** Annotation keys and total size, as documented on Secret.annotations. */
export function checkAnnotations(
  annotations: Record<string, string> | undefined,
): Record<string, string> {
  const entries = Object.entries(annotations ?? {});
  let bytes = 0;
  for (const [key, value] of entries) {
    if (!ANNOTATION_KEY.test(key) || Buffer.byteLength(key) > 128) {
      throw invalid(
        `Invalid annotation key [${key}]: keys must be 1-63 characters, begin and end with a letter or digit, and contain only letters, digits, dashes, underscores and dots.`,
      );
    }
    bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (bytes >= MAX_ANNOTATIONS_BYTES) {
    throw invalid(
      `The total size of annotation keys and values must be less than 16KiB; got ${bytes} bytes.`,
    );
  }
  return Object.fromEntries(entries);
}

/**
 * Version aliases as Secret.version_aliases documents them (resources.proto in
 * @google-cloud/secret-manager; https://cloud.google.com/secret-manager/docs/assign-alias-to-secret-version):
 * an alias starts with a letter, has at most 63 letters, digits, hyphens and underscores, is not
 * `latest` or `new` in any case ("You cannot use Latest or New (case-insensitive) as an alias
 * name"; the proto says 'latest' and 'NEW'), and a secret has at most 50. The value is a version
 * number. Not documented, and the emulator's choice: the number must name a version of the secret
 * (the stricter answer, so code that sets a dangling alias fails here first); its state is not
 * checked. int64 values arrive as strings (proto-loader's `longs: String`).
 */
export function checkVersionAliases(
  aliases: Record<string, string | number> | undefined,
  versionNumbers: readonly number[],
): Record<string, number> {
  const entries = Object.entries(aliases ?? {});
  if (entries.length > MAX_VERSION_ALIASES)
    throw invalid(`A secret can have at most ${MAX_VERSION_ALIASES} version aliases.`);
  const checked: Record<string, number> = {};
  for (const [alias, value] of entries) {
    if (!VERSION_ALIAS.test(alias) || ['latest', 'new'].includes(alias.toLowerCase())) {
      throw invalid(
        `Invalid version alias [${alias}]: an alias starts with a letter, has at most 63 letters, numbers, hyphens and underscores, and cannot be "latest" or "NEW".`,
      );
    }
    const version = Number(value);
    if (!Number.isInteger(version) || !versionNumbers.includes(version))
      throw invalid(
        `Version alias [${alias}] refers to version [${String(value)}], which does not exist.`,
      );
    checked[alias] = version;
  }
  return checked;
}

/** The replication policy as proto-loader gives it (snake_case). */
export interface ProtoReplication {
  automatic?: { customer_managed_encryption?: { kms_key_name?: string } | null } | null;
  user_managed?: {
    replicas?: {
      location?: string;
      customer_managed_encryption?: { kms_key_name?: string } | null;
    }[];
  } | null;
}

/**
 * A replication policy is required; CMEK keys must be where the service requires them
 * (resources.proto, CustomerManagedEncryption.kms_key_name): in `global` for automatic
 * replication, in the replica's own location for user-managed replicas.
 */
export function checkReplication(replication: ProtoReplication | undefined): ProtoReplication {
  if (!replication || !(replication.automatic || replication.user_managed))
    throw invalid('Secret.replication is required.');
  const automaticKey = replication.automatic?.customer_managed_encryption?.kms_key_name;
  if (automaticKey) checkKeyLocation(automaticKey, 'global', 'automatic replication');
  const replicas = replication.user_managed?.replicas ?? [];
  if (replication.user_managed && replicas.length === 0)
    throw invalid('Secret.replication.user_managed.replicas must contain at least one replica.');
  const seen = new Set<string>();
  for (const replica of replicas) {
    if (!replica.location) throw invalid('Replica location is required.');
    // Replicas live in regions only ("Secret Manager does not support zones, dual-regional
    // locations, or multi-regional locations": https://cloud.google.com/secret-manager/docs/locations),
    // each at most once. The shape of a region id stands for the service's list of its regions.
    if (!REGION.test(replica.location))
      throw invalid(`Invalid location [${replica.location}]: a replica location must be a region.`);
    if (seen.has(replica.location))
      throw invalid(`Duplicate replica location [${replica.location}].`);
    seen.add(replica.location);
    const key = replica.customer_managed_encryption?.kms_key_name;
    if (key) checkKeyLocation(key, replica.location, `the replica in ${replica.location}`);
  }
  return replication;
}

function checkKeyLocation(key: string, expected: string, what: string): void {
  const location = KMS_KEY.exec(key)?.[1];
  if (location === undefined)
    throw invalid(
      `Invalid kms_key_name [${key}]: the expected format is projects/*/locations/*/keyRings/*/cryptoKeys/*.`,
    );
  if (location !== expected)
    throw invalid(
      `The Cloud KMS CryptoKey [${key}] for ${what} must reside in location [${expected}], not [${location}].`,
    );
}

export function checkPayload(data: Buffer | undefined): Buffer {
  const bytes = data ?? Buffer.alloc(0);
  if (bytes.length > MAX_PAYLOAD_BYTES) {
    throw invalid(
      `Secret payload data must be at most ${MAX_PAYLOAD_BYTES} bytes; got ${bytes.length}.`,
    );
  }
  return bytes;
}

/**
 * Splits `projects/P/secrets/S[/versions/V]` into the project (id or number, as written), the
 * secret id and the version id; throws INVALID_ARGUMENT for other shapes.
 */
export function parseSecretName(name: string | undefined): {
  project: string;
  secretId: string;
  version?: string;
} {
  const match = /^projects\/([^/]+)\/secrets\/([^/]+)(?:\/versions\/([^/]+))?$/.exec(name ?? '');
  if (!match) throw invalid(`Invalid resource name [${name ?? ''}].`);
  return {
    project: match[1]!,
    secretId: match[2]!,
    ...(match[3] ? { version: match[3] } : {}),
  };
}
