import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { pullSecretFingerprint } from '../../../shared/pull-secret/fingerprint';
import { InvalidPullSecretError, parsePullSecret } from '../../../shared/pull-secret/validate';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import { fail, ok, skip, type CheckResult } from './check';
import { answerOfGrpcError } from './read-answer';
import type { SecretManagerCallOptions } from './secret-manager-probe';

const NAME = 'default-pull-secret';

/** What reading DEFAULT_PULL_SECRET_VERSION gave; never the payload itself. */
export type DefaultPullSecretAnswer =
  | { readonly kind: 'unconfigured' }
  | { readonly kind: 'valid'; readonly registries: number; readonly fingerprint: string }
  | { readonly kind: 'invalid'; readonly problem: string }
  | { readonly kind: 'missing'; readonly message: string }
  | { readonly kind: 'denied'; readonly message: string }
  | { readonly kind: 'failed'; readonly detail: string };

/** The platform default pull secret, when configured, is readable and a dockerconfigjson (pure). */
export function judgeDefaultPullSecret(
  version: string | undefined,
  answer: DefaultPullSecretAnswer,
  identity: string,
): CheckResult {
  const where = `${version ?? ''} (DEFAULT_PULL_SECRET_VERSION, Terraform default_pull_secret_version)`;
  switch (answer.kind) {
    case 'unconfigured':
      return skip(
        NAME,
        'DEFAULT_PULL_SECRET_VERSION is not set: clusters without a pull secret in their spec are not provisioned',
      );
    case 'valid':
      return ok(
        NAME,
        `${version} is readable and a dockerconfigjson of ${answer.registries} registr${answer.registries === 1 ? 'y' : 'ies'} (sha256 ${answer.fingerprint})`,
      );
    case 'invalid':
      return fail(NAME, `${version} is not a valid dockerconfigjson: ${answer.problem}`, {
        problem: 'Every cluster using the platform default fails InvalidPullSecret.',
        resource: where,
        action:
          'Add a valid version to that secret (gcloud secrets versions add) and point default_pull_secret_version at it.',
      });
    case 'missing':
      return fail(NAME, `${version}: ${answer.message}`, {
        problem:
          'The default pull secret version does not exist or is not enabled: clusters using it fail DefaultPullSecretNotFound.',
        resource: where,
        action: 'Point default_pull_secret_version at an enabled version and terraform apply.',
      });
    case 'denied':
      return fail(NAME, `${version}: ${answer.message}`, {
        problem:
          'The job may not read the default pull secret: clusters using it fail PermissionDenied.',
        resource: `${where}: roles/secretmanager.secretAccessor of ${identity} on that secret (and, for latest, roles/secretmanager.viewer: ListSecretVersions)`,
        action:
          'terraform apply grants them (secret-manager-iam.tf, job_reads_default_pull_secret and job_lists_default_pull_secret_versions); docs/deployment.md.',
      });
    case 'failed':
      return skip(NAME, `could not read ${version}: ${answer.detail}`);
  }
}

/**
 * Reads the version as the job does (with its identity: `latest` as the newest enabled version,
 * listed first; run/resolve-pull-secret.ts) and validates it; the bytes are registered with the
 * redactor first and leave this function only as a fingerprint.
 */
export async function probeDefaultPullSecret(request: {
  readonly client: SecretManagerServiceClient;
  readonly version: string | undefined;
  readonly callOptions: SecretManagerCallOptions;
  readonly redactor: SecretRedactor;
}): Promise<DefaultPullSecretAnswer> {
  if (!request.version) return { kind: 'unconfigured' };
  let bytes: Buffer;
  try {
    const name = await newestEnabled(request);
    if (typeof name !== 'string') return name;
    const [response] = await request.client.accessSecretVersion(
      { name },
      await request.callOptions(),
    );
    const data = response.payload?.data;
    bytes = data === null || data === undefined ? Buffer.alloc(0) : Buffer.from(data as Uint8Array);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const answer = answerOfGrpcError(error);
    // FAILED_PRECONDITION (9): the version is disabled or destroyed.
    if (answer.kind === 'missing' || code === 9)
      return { kind: 'missing', message: answer.kind === 'failed' ? answer.detail : 'NOT_FOUND' };
    if (answer.kind === 'denied') return { kind: 'denied', message: answer.message };
    return { kind: 'failed', detail: answer.kind === 'failed' ? answer.detail : answer.kind };
  }
  request.redactor.registerPullSecret(bytes.toString('utf8'));
  try {
    const parsed = parsePullSecret(bytes, 'default pull secret');
    return {
      kind: 'valid',
      registries: Object.keys(parsed.auths).length,
      fingerprint: pullSecretFingerprint(bytes),
    };
  } catch (error) {
    if (error instanceof InvalidPullSecretError) return { kind: 'invalid', problem: error.message };
    throw error;
  }
}

/** `…/versions/latest` as the job reads it: the highest-numbered ENABLED version; others as given. */
async function newestEnabled(request: {
  readonly client: SecretManagerServiceClient;
  readonly version: string | undefined;
  readonly callOptions: SecretManagerCallOptions;
}): Promise<string | DefaultPullSecretAnswer> {
  const version = request.version ?? '';
  if (!version.endsWith('/versions/latest')) return version;
  const parent = version.slice(0, -'/versions/latest'.length);
  const [versions] = await request.client.listSecretVersions(
    { parent, filter: 'state:ENABLED' },
    { ...(await request.callOptions()), autoPaginate: true },
  );
  const numbers = versions
    .filter((v) => String(v.state) === 'ENABLED')
    .map((v) => Number((v.name ?? '').split('/').pop()))
    .filter(Number.isInteger);
  if (numbers.length === 0) return { kind: 'missing', message: 'no enabled version' };
  return `${parent}/versions/${Math.max(...numbers)}`;
}
