import * as z from 'zod';
import { versionNumberOf } from '../../../shared/gcp/secret-manager-names';
import type { JobResult } from '../../../shared/job-result';
import { publishedVersionPath } from '../../../shared/pull-secret/names';
import type { DockerConfigJson } from '../../../shared/pull-secret/validate';
import type { JobConfig, PullSecretSource } from '../config/config';
import { unaliasVersions } from '../secret-manager/publish-version';
import type { SecretSource } from '../kubernetes/secret-source';
import type { SecretStore } from '../secret-manager/secret-store';
import {
  ensureSecretSeen,
  type SecretManagerOutcome,
  type SecretManagerTarget,
  type SyncOptions,
} from '../secret-manager/sync-secret-manager';

// The platform's default pull secret (PULL_SECRET_SOURCE=secret-manager, the adapter's
// DEFAULT_PULL_SECRET_VERSION) is a platform credential. The tenant project is the customer's: they
// read every secret in it. So when the default is in use, its bytes go to the management cluster
// only. The tenant project's secret still exists, without versions: it carries the claim and the
// place records, which stay in one place whatever the source (docs/design/job-protocol.md,
// "What the job writes"). Copying stays possible as an explicit opt-in, COPY_PLATFORM_DEFAULT_TO_TENANT=true.

/** Where the pull secret came from, as the result and the status data say it. */
export type PullSecretOrigin = NonNullable<JobResult['pull_secret_source']>;

/** `secret-manager` is the platform's default: the adapter passes no other Secret Manager version. */
export const pullSecretOrigin = (kind: PullSecretSource['kind']): PullSecretOrigin =>
  kind === 'secret-manager' ? 'platform-default' : kind;

/** The tenant's own pull secret is always stored in its project; the default only on opt-in. */
export const copiesToTenant = (
  config: Pick<JobConfig, 'copyPlatformDefaultToTenant'>,
  kind: PullSecretSource['kind'],
): boolean => kind !== 'secret-manager' || config.copyPlatformDefaultToTenant === true;

/**
 * What the Kubernetes Secret's annotations name. `hyperfleet.io/gcp-secret-path` is the version a
 * reader reads: the tenant secret through the alias `current` (numbered versions are destroyed by
 * retention, and `latest` may name a withdrawn one: shared/pull-secret/names.ts), or, when the
 * platform default was not copied, the default as the platform configured it
 * (DEFAULT_PULL_SECRET_VERSION: the job puts no alias on a secret it does not own).
 * `hyperfleet.io/gcp-secret-version` is the number of the version of that secret the bytes came
 * from: written or found current, or the default's as the service resolved it (`readFrom`).
 * `hyperfleet.io/default-version` is the default's version number whenever the bytes came from the
 * default (copied to the tenant or not): the order of a rotation's writes (default-version.ts).
 */
export function secretSource(
  stored: SecretManagerOutcome,
  source: PullSecretSource,
  readFrom?: string,
): SecretSource {
  const numberOf = (name: string | undefined) => {
    const version = versionNumberOf(name ?? '');
    return Number.isNaN(version) ? {} : { version: String(version) };
  };
  // The default's version number, copied or not: it orders a rotation's writes (default-version.ts).
  const fromDefault =
    source.kind === 'secret-manager' && numberOf(readFrom).version !== undefined
      ? { defaultVersion: numberOf(readFrom).version }
      : {};
  if (stored.version === 'none' && source.kind === 'secret-manager')
    return { path: source.version, ...numberOf(readFrom), ...fromDefault };
  return {
    path: publishedVersionPath(stored.secretPath),
    ...numberOf(stored.versionName),
    ...fromDefault,
  };
}

/**
 * The Secret Manager phase when the platform default is in use and not copied: the tenant secret
 * exists and is ours (the claim may have created it), and no enabled version of it holds any of the
 * default's credentials. One left by an earlier version of the job, or under the opt-in since
 * turned off, is destroyed: a WARNING says so, since the tenant could read it meanwhile.
 */
export async function keepDefaultOutOfTenant(
  store: SecretStore,
  target: SecretManagerTarget,
  platformDefault: { readonly parsed: DockerConfigJson; readonly bytes: Buffer },
  options: Pick<SyncOptions, 'logger' | 'dryRun' | 'claimed' | 'retry'>,
): Promise<SecretManagerOutcome> {
  const secretPath = `projects/${target.projectId}/secrets/${target.secretId}`;
  const log = options.logger.child({ phase: 'secret-manager', secret_name: target.secretId });
  const ensured =
    options.claimed ??
    (await ensureSecretSeen(store, target, secretPath, { log, dryRun: options.dryRun }));
  const state = typeof ensured === 'string' ? ensured : ensured.state;
  const withdrawn =
    state === 'reused'
      ? await withdrawCopies(store, secretPath, platformDefault, { ...options, logger: log })
      : [];
  log.info(
    'Platform default pull secret in use: not copied to the tenant project (COPY_PLATFORM_DEFAULT_TO_TENANT is off); the secret holds only the claim and place records',
    { operation: 'withhold-default', withdrawn_versions: withdrawn.length },
  );
  return {
    secretPath,
    secret: state === 'reused' ? 'reused' : 'created',
    version: 'none',
    versionName: '',
    verified: !options.dryRun,
    destroyedVersions: options.dryRun ? [] : withdrawn,
  };
}

/** Destroys each enabled version holding the default's credentials; their names. */
async function withdrawCopies(
  store: SecretStore,
  secretPath: string,
  platformDefault: { readonly parsed: DockerConfigJson; readonly bytes: Buffer },
  options: Pick<SyncOptions, 'logger' | 'dryRun' | 'retry'>,
): Promise<string[]> {
  const { logger: log, dryRun } = options;
  const enabled = (await store.listVersions(secretPath)).filter((v) => v.state === 'ENABLED');
  const copies: string[] = [];
  for (const version of enabled) {
    const payload = await store.accessVersion(version.name);
    if (payload && holdsCredentialsOf(payload.data, platformDefault)) copies.push(version.name);
  }
  // A copy published under the opt-in is `current`: no alias may name a withdrawn copy.
  if (copies.length && !dryRun) await unaliasVersions(store, secretPath, copies, options);
  for (const name of copies) {
    if (!dryRun) await store.destroyVersion(name);
    log.warn(
      `${dryRun ? 'Dry run: would destroy' : 'Destroyed'} ${name}: it held the platform default pull secret, which the tenant project must not hold (copied by an earlier version of the job, or under COPY_PLATFORM_DEFAULT_TO_TENANT). The tenant could read it until now: consider rotating the default.`,
      { operation: 'withdraw-default', version: name },
    );
  }
  return copies;
}

/** Any JSON with `auths`; entries without a string `auth` are not compared. */
const storedAuths = z.object({
  auths: z.record(z.string(), z.looseObject({ auth: z.string().optional() })),
});

/**
 * A version holds the default when it is the same bytes, or when any of its registries carries one
 * of the default's `auth` credentials (a merge with an additional pull secret, or another layout).
 */
export function holdsCredentialsOf(
  data: Buffer,
  platformDefault: { readonly parsed: DockerConfigJson; readonly bytes: Buffer },
): boolean {
  if (data.equals(platformDefault.bytes)) return true;
  const secrets = new Set(Object.values(platformDefault.parsed.auths).map((entry) => entry.auth));
  let json: unknown;
  try {
    json = JSON.parse(data.toString('utf8'));
  } catch {
    return false;
  }
  const parsed = storedAuths.safeParse(json);
  if (!parsed.success) return false;
  return Object.values(parsed.data.auths).some(
    (entry) => entry.auth !== undefined && secrets.has(entry.auth),
  );
}
