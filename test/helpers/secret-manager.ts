import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { googleClientOptions } from '../../shared/gcp/client-options';
import {
  operatorAccess,
  operatorClientOptions,
} from '../../emulators/pullsecret/stack/operator-credentials';

/**
 * The real Secret Manager client of the local stack, as its operator (the stack's Secret Manager
 * serves TLS and refuses calls without credentials, as Google does).
 */
export function stackSecretManagerClient(d: {
  readonly endpoints: {
    readonly secretManager: string;
    readonly publicCaFile: string;
    readonly operatorMetadata: string;
  };
}): SecretManagerServiceClient {
  return new SecretManagerServiceClient({
    ...operatorClientOptions(operatorAccess(d, d.endpoints.secretManager)),
    projectId: 'demo-project',
  });
}

/** The real Secret Manager client pointed at a standalone emulator's endpoint (no credentials). */
export function secretManagerClient(endpoint: string): SecretManagerServiceClient {
  process.env.METADATA_SERVER_DETECTION = 'none';
  return new SecretManagerServiceClient(googleClientOptions(endpoint, 'demo-project'));
}

/** What a delete leaves in Secret Manager (the tombstone: delete-pull-secret.ts), as read back through the real client. */
export interface TombstoneView {
  /** Every version as `N:STATE`, newest first: all DESTROYED once the bytes are gone. */
  readonly versions: string[];
  /** Seconds from now until Secret Manager deletes the secret by itself; undefined: never. */
  readonly expiresInSeconds?: number;
  /** The claim's operation and generation (`delete@2`), or undefined without a claim. */
  readonly claim?: string;
}

/** The secret as a tombstone view; undefined when it does not exist. */
export async function tombstoneOf(
  client: SecretManagerServiceClient,
  name: string,
  now: () => number = Date.now,
): Promise<TombstoneView | undefined> {
  let secret;
  try {
    [secret] = await client.getSecret({ name });
  } catch (error) {
    if ((error as { code?: number }).code === 5) return undefined;
    throw error;
  }
  const [versions] = await client.listSecretVersions({ parent: name });
  const annotations = secret.annotations ?? {};
  const operation = annotations['hyperfleet.io-claimed-operation'];
  const generation = annotations['hyperfleet.io-claimed-generation'];
  const expireSeconds = secret.expireTime?.seconds;
  return {
    versions: versions.map((v) => `${v.name?.split('/').pop()}:${String(v.state)}`),
    ...(expireSeconds !== undefined && expireSeconds !== null
      ? { expiresInSeconds: Math.round(Number(expireSeconds) - now() / 1000) }
      : {}),
    ...(operation ? { claim: `${operation}@${generation ?? ''}` } : {}),
  };
}

/**
 * What is left of a cluster's secret after a delete, in one word for assertions: `absent`,
 * `tombstone` (every version destroyed, a delete's claim, an expiration), or what is wrong.
 */
export async function leftAfterDelete(
  client: SecretManagerServiceClient,
  name: string,
): Promise<string> {
  const view = await tombstoneOf(client, name);
  if (!view) return 'absent';
  const live = view.versions.filter((v) => !v.endsWith(':DESTROYED'));
  if (live.length > 0) return `live versions: ${live.join(', ')}`;
  if (!view.claim?.startsWith('delete@')) return `no delete claim (${view.claim ?? 'none'})`;
  if (view.expiresInSeconds === undefined) return 'no expiration';
  return 'tombstone';
}
