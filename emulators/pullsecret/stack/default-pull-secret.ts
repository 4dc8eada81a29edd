import { randomBytes } from 'node:crypto';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { LOCAL_PROJECT } from './layout';
import { operatorClientOptions, type OperatorAccess } from './operator-credentials';

/**
 * The platform default pull secret of the local stack: in the platform project, where an operator
 * keeps it in production (SECURITY.md's assets: "Secret Manager (platform project)"), beside the
 * job it is granted to (terraform/modules/pullsecret-adapter/secret-manager-iam.tf).
 */
export const DEFAULT_PULL_SECRET_ID = 'platform-default-pull-secret';
export const DEFAULT_PULL_SECRET = `projects/${LOCAL_PROJECT}/secrets/${DEFAULT_PULL_SECRET_ID}`;

/**
 * The default's labels: what it is, for a reader of the platform project's secrets. It is the
 * operator's, not the job's, so none of the job's ownership labels (`managed-by=hyperfleet`,
 * `adapter`, `cluster-id`, functions/pull-secret-job/config/labels.ts): the job only reads it.
 */
export const DEFAULT_PULL_SECRET_LABELS: Readonly<Record<string, string>> = {
  'resource-type': 'pull-secret',
  'pull-secret-role': 'platform-default',
};

/** The stack's default, or none when the options turn it off. */
export interface StackDefaultPullSecret {
  /** The secret, `projects/P/secrets/S` (P the project id): stack.json's `defaultPullSecret`. */
  readonly secret: string;
  /**
   * DEFAULT_PULL_SECRET_VERSION of the adapter and the job: `latest`, so that a version added to
   * the secret is a rotation (the next run of each cluster on the default reads it) without a
   * redeploy; a pinned number would make a rotation a configuration change.
   */
  readonly version: string;
}

/** The default the stack configures: unless `defaultPullSecret: false` (a stack without one). */
export function stackDefaultPullSecret(options: {
  readonly defaultPullSecret?: boolean;
}): StackDefaultPullSecret | undefined {
  if (options.defaultPullSecret === false) return undefined;
  return { secret: DEFAULT_PULL_SECRET, version: `${DEFAULT_PULL_SECRET}/versions/latest` };
}

/**
 * A valid dockerconfigjson that is plainly no registry's credential (a robot named for what it is,
 * a password generated for this start); it is never printed, and the tests scan for it as for
 * every pull secret (test/helpers/secret-scan.ts).
 */
export function demoDefaultPullSecret(): string {
  const password = randomBytes(18).toString('base64url');
  const auth = Buffer.from(`platform-default-demo:${password}`).toString('base64');
  return JSON.stringify({
    auths: {
      'quay.io': { auth, email: 'platform-default@example.com' },
      'registry.redhat.io': { auth },
    },
  });
}

/**
 * Creates the default secret (DEFAULT_PULL_SECRET) with its first version, as the operator (the
 * runtime identities may only read it): what an operator does once before setting Terraform's
 * default_pull_secret_version.
 */
export async function createDefaultPullSecret(
  access: OperatorAccess,
  payload: string,
): Promise<void> {
  const client = new SecretManagerServiceClient(operatorClientOptions(access));
  try {
    await client.createSecret({
      parent: `projects/${LOCAL_PROJECT}`,
      secretId: DEFAULT_PULL_SECRET_ID,
      secret: { replication: { automatic: {} }, labels: { ...DEFAULT_PULL_SECRET_LABELS } },
    });
    await client.addSecretVersion({
      parent: DEFAULT_PULL_SECRET,
      payload: { data: Buffer.from(payload) },
    });
  } finally {
    await client.close();
  }
}

/** DEFAULT_PULL_SECRET_VERSION of the adapter and the job, as Terraform sets it on both; none when off. */
export function defaultVersionEnv(options: {
  readonly defaultPullSecret?: boolean;
}): Record<string, string> {
  const configured = stackDefaultPullSecret(options);
  return configured ? { DEFAULT_PULL_SECRET_VERSION: configured.version } : {};
}

/**
 * Subscribes the default to rotations: its `topics` name the fleet-requests topic, so Secret
 * Manager notifies the adapter of every new, disabled or destroyed version (what the operator does
 * once in production: `gcloud secrets update SECRET --add-topics=TOPIC`, docs/operations.md). The
 * topic must exist first (Secret Manager refuses a missing one), so this runs after the wiring.
 */
export async function notifyDefaultPullSecretChanges(
  access: OperatorAccess,
  topic: string,
): Promise<void> {
  const client = new SecretManagerServiceClient(operatorClientOptions(access));
  try {
    await client.updateSecret({
      secret: { name: DEFAULT_PULL_SECRET, topics: [{ name: topic }] },
      updateMask: { paths: ['topics'] },
    });
  } finally {
    await client.close();
  }
}
