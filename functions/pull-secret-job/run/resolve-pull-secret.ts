import { PermanentError } from '../../../shared/errors';
import {
  formatSecretManagerName,
  parseSecretManagerName,
} from '../../../shared/gcp/secret-manager-names';
import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import { readPath } from '../../../shared/object-path';
import { InvalidPullSecretError } from '../../../shared/pull-secret/validate';
import type { PullSecretSource } from '../config/config';
import type { SecretStore, VersionPayload } from '../secret-manager/secret-store';

/** The raw texts to validate: the cluster's pull secret and, if any, an additional one. */
export interface ResolvedPullSecret {
  readonly original: string;
  readonly additional?: string;
  /** Where it came from, for logs: `env`, `cluster-spec`, `secret-manager`. */
  readonly from: PullSecretSource['kind'];
  /** The cluster as read, whenever the API is configured: the apply checks it (cluster-check.ts). */
  readonly cluster?: Cluster;
  /**
   * The Secret Manager version the pull secret was read from, by number (`latest` or an alias
   * resolved by the service), when the source is one: the Kubernetes Secret's provenance.
   */
  readonly readFrom?: string;
}

/**
 * Resolves the reference the adapter passed (never the bytes): the cluster spec via the HyperFleet
 * API, a Secret Manager version such as the platform's default pull secret, or PULL_SECRET_DATA for
 * direct runs. The additional pull secret is read from the cluster spec when the API is configured,
 * so the cluster is read then whatever the source.
 */
export async function resolvePullSecret(
  clusterId: string,
  source: PullSecretSource,
  additionalSpecPath: string,
  ports: { hyperfleet?: HyperFleetApi; secretStore: SecretStore },
): Promise<ResolvedPullSecret> {
  let cluster: Cluster | undefined;
  const loadCluster = async () => {
    if (!ports.hyperfleet) return undefined;
    cluster ??= await ports.hyperfleet.findCluster(clusterId);
    if (!cluster)
      throw new PermanentError(
        `Cluster ${clusterId} no longer exists in the HyperFleet API; nothing to provision.`,
        'ClusterNotFound',
      );
    return cluster;
  };
  let original: string;
  let readFrom: string | undefined;
  if (source.kind === 'env') original = source.data;
  else if (source.kind === 'cluster-spec') {
    const value = readPath(await loadCluster(), source.specPath);
    if (value === undefined || value === null || value === '') {
      throw new InvalidPullSecretError(
        `The cluster has no pull secret at ${source.specPath}. Set it in the cluster spec, or configure a default pull secret.`,
      );
    }
    original = asDockerConfigText(value, source.specPath);
  } else {
    const payload = await readDefault(ports.secretStore, source.version);
    original = payload.data.toString('utf8');
    readFrom = payload.name;
  }
  const extra = ports.hyperfleet ? readPath(await loadCluster(), additionalSpecPath) : undefined;
  const additional =
    extra === undefined || extra === null || extra === ''
      ? undefined
      : asDockerConfigText(extra, additionalSpecPath);
  return {
    original,
    ...(additional !== undefined ? { additional } : {}),
    from: source.kind,
    ...(cluster ? { cluster } : {}),
    ...(readFrom ? { readFrom } : {}),
  };
}

/**
 * Reads the platform default. `latest` is read as the newest ENABLED version, not as Secret
 * Manager's alias: that alias is the most recently created version whatever its state, and access
 * to it fails while it is disabled (AccessSecretVersion:
 * https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets.versions/access;
 * https://cloud.google.com/secret-manager/docs/disable-secret-version), so a disabled newest version
 * would fail every cluster on the default. ListSecretVersions with `state:ENABLED` names the ones
 * that can be read; the highest number is read (one listed then disabled meanwhile: listed again).
 * A pinned number or an alias is read as it is: the operator chose it.
 */
/**
 * The default as this process read it, by configured name: a batch task runs hundreds of clusters
 * on one default, and Secret Manager's read quota (ListSecretVersions: 600 a minute a project) is
 * far below its access quota, so the task lists once. A per-cluster execution reads once anyway.
 * A failed read is not kept (the next run tries again).
 */
const defaults = new Map<string, Promise<VersionPayload>>();

export function readDefault(store: SecretStore, version: string): Promise<VersionPayload> {
  let read = defaults.get(version);
  if (!read) {
    read = readDefaultNow(store, version);
    defaults.set(version, read);
    read.catch(() => defaults.delete(version));
  }
  return read;
}

async function readDefaultNow(store: SecretStore, version: string): Promise<VersionPayload> {
  const name = parseSecretManagerName(version);
  const missing = (why: string) =>
    new PermanentError(`The default pull secret ${version} ${why}.`, 'DefaultPullSecretNotFound');
  if (name?.version !== 'latest') {
    const payload = await store.accessVersion(version);
    if (!payload) throw missing('does not exist or is not enabled');
    return payload;
  }
  const secret = formatSecretManagerName({ project: name.project, secret: name.secret });
  for (let listing = 1; ; listing++) {
    const enabled = await store.listVersions(secret, 'state:ENABLED');
    const newest = enabled
      .filter((v) => v.state === 'ENABLED')
      .reduce<number | undefined>(
        (top, v) => (top === undefined || v.number > top ? v.number : top),
        undefined,
      );
    if (newest === undefined)
      throw missing('has no enabled version (resolved as its newest enabled one)');
    const payload = await store.accessVersion(`${secret}/versions/${newest}`);
    if (payload) return payload;
    if (listing === 2)
      throw missing(`lost its newest enabled version (${newest}) while it was read`);
  }
}

/** The spec may hold the dockerconfigjson as a JSON string or as an object. */
function asDockerConfigText(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  throw new InvalidPullSecretError(
    `The pull secret at ${path} must be a dockerconfigjson string or object, not a ${typeof value}.`,
  );
}
