import { status } from '@grpc/grpc-js';
import { crc32c } from '../../shared/gcp/crc32c';
import { GrpcError } from '../common/grpc-error';
import { EXPIRATION_PATHS, expirationOf, hasExpired, type ProtoExpiration } from './expiration';
import { parseListFilter } from './filter';
import type { AnsweredSecret, AnsweredVersion } from './notifications/event-message';
import { checkTopics, type ProtoTopics } from './notifications/topics';
import { projectNumbers, type ProjectNumberOf } from './project-numbers';
import {
  checkAnnotations,
  checkLabels,
  checkParent,
  checkPayload,
  checkReplication,
  checkSecretId,
  checkVersionAliases,
  parseSecretName,
  type ProtoReplication,
} from './rules';

export type VersionState = 'ENABLED' | 'DISABLED' | 'DESTROYED';

/** A secret version as persisted; `data` is base64 and disappears when destroyed. */
export interface StoredVersion {
  number: number;
  state: VersionState;
  createTime: string;
  destroyTime?: string;
  data?: string;
  crc32c?: number;
  clientChecksum: boolean;
  /** Absent in state files written before versions had their own etag. */
  etag?: string;
}

/** A secret as persisted. `replication` is kept as the client sent it. */
export interface StoredSecret {
  name: string;
  replication: unknown;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  createTime: string;
  /** When the service deletes the secret by itself (expiration.ts); absent: never. */
  expireTime?: string;
  etag: string;
  nextVersion: number;
  versions: StoredVersion[];
  /** Alias → version number (Secret.version_aliases); absent in state files written before aliases. */
  versionAliases?: Record<string, number>;
  /** Pub/Sub topics notified of its changes (Secret.topics); absent: none. */
  topics?: string[];
}

/** The whole emulator state; plain data so that it serialises to one JSON file. */
export interface SecretManagerSnapshot {
  secrets: StoredSecret[];
}

type Timestamp = { seconds: string; nanos: number };
const timestamp = (iso: string): Timestamp => {
  const ms = Date.parse(iso);
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
};
const notFound = (message: string) => new GrpcError(status.NOT_FOUND, message);
const precondition = (message: string) => new GrpcError(status.FAILED_PRECONDITION, message);

/**
 * Secret Manager semantics over plain data: resource names, version numbering, `latest`,
 * state transitions, checksums and list filters. The gRPC server only translates to and from it.
 *
 * Resource names as the real service has them: a request may name the project by id or by number
 * and reaches the same secret ("Externally-facing Google APIs should accept both project IDs and
 * project numbers"; "The project number is the canonical identifier", AIP-2510,
 * https://google.aip.dev/cloud/2510), and every name the service answers, in every method's
 * answer and in its error messages, carries the number, whichever form the request used (though
 * the AIP asks a service to answer the id a request sent, Secret Manager does not):
 * AddSecretVersion on `projects/oscar-go-1/secrets/74657374` answers
 * `projects/685789191942/secrets/74657374/versions/3`, and so does AccessSecretVersion of
 * `projects/oscar-go-1/secrets/74657374/versions/latest` (a recorded exchange with the service,
 * https://go.googlesource.com/oscar/+/d8fe18dcade6cc52cec8af7c5144c0216f7a2a1a/internal/gcp/gcpsecret/testdata/sdb.grpcrr);
 * a GetSecretVersion by project id fails with "Secret [projects/829294825753/secrets/MY_SECRETS]
 * not found or has no versions." (https://github.com/firebase/firebase-tools/pull/3959). So
 * secrets are kept under their number-form name, and a request's name is resolved to it
 * (`projectNumber`, project-numbers.ts) before any lookup. IAM's PERMISSION_DENIED, checked
 * before this, keeps naming the resource as the request gave it (iam/secret-manager-iam.ts).
 */
export class SecretManagerState {
  private readonly secrets = new Map<string, StoredSecret>();

  constructor(
    snapshot?: SecretManagerSnapshot,
    private readonly now: () => Date = () => new Date(),
    private readonly projectNumber: ProjectNumberOf = projectNumbers(),
    /** Told of each secret its expiration deletes (notifications/secret-events.ts). */
    private readonly onExpired: (secret: AnsweredSecret) => void = () => {},
  ) {
    // State files written before names carried the number are read into the number form.
    for (const secret of snapshot?.secrets ?? []) {
      const { project, secretId } = parseSecretName(secret.name);
      secret.name = this.secretName(project, secretId);
      this.secrets.set(secret.name, secret);
    }
  }

  snapshot(): SecretManagerSnapshot {
    return { secrets: [...this.secrets.values()] };
  }

  createSecret(
    parent: string | undefined,
    secretId: string | undefined,
    secret: ProtoSecret | undefined,
  ) {
    const name = this.secretName(checkParent(parent), checkSecretId(secretId));
    const replication = checkReplication(secret?.replication);
    const labels = checkLabels(secret?.labels);
    const annotations = checkAnnotations(secret?.annotations);
    // A new secret has no version for an alias to name.
    const versionAliases = checkVersionAliases(secret?.version_aliases, []);
    const topics = checkTopics(secret?.topics);
    const expireTime = expirationOf(secret, this.now());
    // An expired secret is deleted, so its name can be used again.
    this.dropExpired();
    if (this.secrets.has(name))
      throw new GrpcError(status.ALREADY_EXISTS, `Secret [${name}] already exists.`);
    const stored: StoredSecret = {
      name,
      replication,
      labels,
      annotations,
      createTime: this.now().toISOString(),
      ...(expireTime ? { expireTime } : {}),
      etag: this.newEtag(),
      nextVersion: 1,
      versions: [],
      versionAliases,
      ...(topics.length > 0 ? { topics } : {}),
    };
    this.secrets.set(name, stored);
    return this.toProtoSecret(stored);
  }

  getSecret(name: string | undefined) {
    return this.toProtoSecret(this.requireSecret(name));
  }

  updateSecret(secret: ProtoSecret | undefined, paths: readonly string[]) {
    const stored = this.requireSecret(secret?.name);
    if (paths.length === 0)
      throw new GrpcError(status.INVALID_ARGUMENT, 'update_mask is required.');
    // The request etag travels inside the Secret for UpdateSecret (docs: "etags").
    this.checkEtag(stored.etag, secret?.etag, stored.name);
    const labels = paths.includes('labels') ? checkLabels(secret?.labels) : stored.labels;
    const annotations = paths.includes('annotations')
      ? checkAnnotations(secret?.annotations)
      : stored.annotations;
    // The mask replaces the whole map (AIP-134), so a caller keeps other aliases by sending them.
    const versionAliases = paths.includes('version_aliases')
      ? checkVersionAliases(
          secret?.version_aliases,
          stored.versions.map((v) => v.number),
        )
      : (stored.versionAliases ?? {});
    // The mask replaces the whole list: an empty one removes every topic.
    const topics = paths.includes('topics') ? checkTopics(secret?.topics) : (stored.topics ?? []);
    const unsupported = paths.find(
      (path) => !UPDATABLE_PATHS.includes(path) && !EXPIRATION_PATHS.includes(path),
    );
    if (unsupported)
      throw new GrpcError(
        status.INVALID_ARGUMENT,
        `Unsupported update_mask path [${unsupported}].`,
      );
    // Either expiration path sets the expiration from whichever field the request carries, and
    // removes it when the request carries neither (expiration.ts).
    const expireTime = paths.some((path) => EXPIRATION_PATHS.includes(path))
      ? expirationOf(secret, this.now())
      : stored.expireTime;
    stored.labels = labels;
    stored.annotations = annotations;
    stored.versionAliases = versionAliases;
    if (topics.length > 0) stored.topics = topics;
    else delete stored.topics;
    if (expireTime) stored.expireTime = expireTime;
    else delete stored.expireTime;
    // Every update, even a no-op, gets a new etag.
    stored.etag = this.newEtag();
    return this.toProtoSecret(stored);
  }

  /** Deletes the secret; answers it as it was (its SECRET_DELETE notification carries it). */
  deleteSecret(name: string | undefined, etag?: string): AnsweredSecret {
    const stored = this.requireSecret(name);
    this.checkEtag(stored.etag, etag, stored.name);
    this.secrets.delete(stored.name);
    return this.toProtoSecret(stored);
  }

  listSecrets(parent: string | undefined, filter?: string, pageSize?: number, pageToken?: string) {
    const prefix = `projects/${this.projectNumber(checkParent(parent))}/secrets/`;
    const predicate = parseListFilter(filter);
    this.dropExpired();
    const matching = [...this.secrets.values()]
      .filter((secret) => secret.name.startsWith(prefix))
      .filter((secret) => predicate({ name: secret.name, labels: secret.labels }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const page = paginate(matching, pageSize, pageToken);
    return {
      secrets: page.items.map((secret) => this.toProtoSecret(secret)),
      next_page_token: page.next,
      total_size: matching.length,
    };
  }

  addVersion(
    parent: string | undefined,
    payload: { data?: Buffer; data_crc32c?: string } | undefined,
  ) {
    const stored = this.requireSecret(parent);
    const data = checkPayload(payload?.data);
    const checksum = crc32c(data);
    if (payload?.data_crc32c !== undefined && Number(payload.data_crc32c) !== checksum) {
      throw new GrpcError(
        status.INVALID_ARGUMENT,
        'The checksum in field data_crc32c did not match the data in field data.',
      );
    }
    const version: StoredVersion = {
      number: stored.nextVersion,
      state: 'ENABLED',
      createTime: this.now().toISOString(),
      data: data.toString('base64'),
      crc32c: checksum,
      clientChecksum: payload?.data_crc32c !== undefined,
      etag: this.newEtag(),
    };
    stored.nextVersion += 1;
    stored.versions.push(version);
    return this.toProtoVersion(stored, version);
  }

  accessVersion(name: string | undefined) {
    const { secret, version } = this.requireVersion(name, true);
    if (version.state !== 'ENABLED') {
      throw precondition(
        `Secret Version [${versionName(secret, version)}] is in ${version.state} state.`,
      );
    }
    return {
      name: versionName(secret, version),
      payload: {
        data: Buffer.from(version.data ?? '', 'base64'),
        data_crc32c: String(version.crc32c),
      },
    };
  }

  getVersion(name: string | undefined) {
    const { secret, version } = this.requireVersion(name, true);
    return this.toProtoVersion(secret, version);
  }

  listVersions(parent: string | undefined, filter?: string, pageSize?: number, pageToken?: string) {
    const secret = this.requireSecret(parent);
    const predicate = parseListFilter(filter);
    const matching = [...secret.versions]
      .reverse()
      .filter((version) =>
        predicate({ name: versionName(secret, version), labels: {}, state: version.state }),
      );
    const page = paginate(matching, pageSize, pageToken);
    return {
      versions: page.items.map((version) => this.toProtoVersion(secret, version)),
      next_page_token: page.next,
      total_size: matching.length,
    };
  }

  /**
   * Disable, enable, destroy. A version an alias names can be disabled and destroyed here: Google's
   * reference states no precondition on aliases for either
   * (https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets.versions/disable,
   * .../destroy: "Sets the state of the SecretVersion to DESTROYED and irrevocably destroys the
   * secret data"), nor that the alias goes away. Whether the real service refuses is not
   * documented, so this is the emulator's reading, and the job relies on neither answer (it never
   * destroys a version an alias names without removing the alias first: publish-version.ts). The
   * alias keeps the number; access through it then fails as access by that number does
   * (FAILED_PRECONDITION). Not by alias: "Access by alias is only supported on GetSecretVersion and
   * AccessSecretVersion" (Secret.version_aliases); any other id names no version (NOT_FOUND).
   */
  setVersionState(name: string | undefined, target: VersionState, etag?: string) {
    const { secret, version } = this.requireVersion(name, false);
    // Versions have etags of their own: updating a version does not change the secret's etag.
    this.checkEtag(version.etag ?? '', etag, versionName(secret, version));
    if (version.state === 'DESTROYED') {
      throw precondition(`Secret Version [${versionName(secret, version)}] is in DESTROYED state.`);
    }
    version.state = target;
    version.etag = this.newEtag();
    if (target === 'DESTROYED') {
      version.destroyTime = this.now().toISOString();
      delete version.data;
      delete version.crc32c;
    }
    return this.toProtoVersion(secret, version);
  }

  /** A secret's name as the service answers it: with its project's number. */
  private secretName(project: string, secretId: string): string {
    return `projects/${this.projectNumber(project)}/secrets/${secretId}`;
  }

  private requireSecret(name: string | undefined): StoredSecret {
    const { project, secretId, version } = parseSecretName(name);
    if (version !== undefined)
      throw new GrpcError(status.INVALID_ARGUMENT, `Invalid resource name [${name}].`);
    const secretName = this.secretName(project, secretId);
    this.dropExpired();
    const stored = this.secrets.get(secretName);
    if (!stored) throw notFound(`Secret [${secretName}] not found or has no versions.`);
    return stored;
  }

  /** `byAlias`: the version id may be an alias (GetSecretVersion and AccessSecretVersion only). */
  private requireVersion(
    name: string | undefined,
    byAlias: boolean,
  ): {
    secret: StoredSecret;
    version: StoredVersion;
  } {
    const { project, secretId, version: id } = parseSecretName(name);
    const secretName = this.secretName(project, secretId);
    this.dropExpired();
    const secret = this.secrets.get(secretName);
    if (!secret || id === undefined)
      throw notFound(`Secret [${secretName}] not found or has no versions.`);
    // `latest` is the most recently created version whatever its state (AccessSecretVersionRequest):
    // a disabled or destroyed latest fails on access; it never falls back to an older version.
    // An alias names the version it was set to, whatever that version's state since.
    const aliased = byAlias ? secret.versionAliases?.[id] : undefined;
    const number = aliased !== undefined ? String(aliased) : id;
    const version =
      id === 'latest'
        ? secret.versions[secret.versions.length - 1]
        : secret.versions.find((v) => String(v.number) === number);
    if (!version) throw notFound(`Secret Version [${secretName}/versions/${id}] not found.`);
    return { secret, version };
  }

  /** A stale etag fails with FAILED_PRECONDITION (HTTP 400), as the service documents; none skips the check. */
  private checkEtag(current: string, given: string | undefined, resource: string): void {
    if (given && given !== current) {
      throw precondition(
        `The etag provided in the request does not match the current etag of [${resource}]. Read the resource again and retry.`,
      );
    }
  }

  /** Deletes every secret whose expiration has passed, as the service does at that moment. */
  private dropExpired(): void {
    const now = this.now();
    for (const [name, secret] of this.secrets)
      if (hasExpired(secret.expireTime, now)) {
        this.secrets.delete(name);
        this.onExpired(this.toProtoSecret(secret));
      }
  }

  private newEtag(): string {
    return `"${this.now().getTime().toString(16)}${Math.random().toString(16).slice(2, 8)}"`;
  }

  private toProtoSecret(secret: StoredSecret): AnsweredSecret {
    return {
      name: secret.name,
      replication: secret.replication,
      labels: secret.labels,
      annotations: secret.annotations,
      version_aliases: secret.versionAliases ?? {},
      topics: (secret.topics ?? []).map((topic) => ({ name: topic })),
      create_time: timestamp(secret.createTime),
      ...(secret.expireTime ? { expire_time: timestamp(secret.expireTime) } : {}),
      etag: secret.etag,
    };
  }

  private toProtoVersion(secret: StoredSecret, version: StoredVersion): AnsweredVersion {
    return {
      name: versionName(secret, version),
      state: version.state,
      create_time: timestamp(version.createTime),
      ...(version.destroyTime ? { destroy_time: timestamp(version.destroyTime) } : {}),
      etag: version.etag ?? secret.etag,
      client_specified_payload_checksum: version.clientChecksum,
    };
  }
}

/** The request shape of a Secret resource (snake_case, as proto-loader gives it). */
export interface ProtoSecret extends ProtoExpiration {
  name?: string;
  replication?: ProtoReplication;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Alias → version number; int64 values arrive as strings (proto-loader's `longs: String`). */
  version_aliases?: Record<string, string | number>;
  etag?: string;
  /** Secret.topics: `{name: 'projects/P/topics/T'}` each. */
  topics?: ProtoTopics;
}

/** The update_mask paths UpdateSecret takes here (the fields this emulator stores and may change). */
const UPDATABLE_PATHS: readonly string[] = ['labels', 'annotations', 'version_aliases', 'topics'];

function versionName(secret: StoredSecret, version: StoredVersion): string {
  return `${secret.name}/versions/${version.number}`;
}

function paginate<T>(
  items: T[],
  pageSize?: number,
  pageToken?: string,
): { items: T[]; next: string } {
  const size = pageSize && pageSize > 0 ? Math.min(pageSize, 25_000) : 25_000;
  const start = pageToken ? Number(Buffer.from(pageToken, 'base64').toString('utf8')) || 0 : 0;
  const slice = items.slice(start, start + size);
  const next =
    start + size < items.length ? Buffer.from(String(start + size)).toString('base64') : '';
  return { items: slice, next };
}
