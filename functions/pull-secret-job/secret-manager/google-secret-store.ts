import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { grpcCode, isTransientGrpcError, toAdapterError } from '../../../shared/gcp/grpc-failure';
import { GRPC_CALL_STATUSES } from '../../../shared/gcp/grpc-http-status';
import { GrpcStatus as status, grpcStatusName } from '../../../shared/gcp/grpc-status';
import { nameAsAsked, versionNumberOf } from '../../../shared/gcp/secret-manager-names';
import { loggedApiCall } from '../../../shared/logging/api-call-log';
import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { withRetry } from '../../../shared/retry/with-retry';
import { storedReplicationOf, type ClientReplication } from '../replication/existing-replication';
import type {
  Replication,
  SecretFields,
  SecretMetadata,
  SecretStore,
  VersionPayload,
  VersionSummary,
} from './secret-store';

// The adapter to Google's Secret Manager API: the SecretStore port over the
// @google-cloud/secret-manager client, each call with its own deadline and our own retries, its
// expected answers (NOT_FOUND, ALREADY_EXISTS, a stale etag) turned into results and the rest
// into AdapterErrors, and the client's messages translated to and from SecretMetadata, with the
// names answered put back in the request's form (nameAsAsked: shared/gcp/secret-manager-names.ts).

export interface GoogleSecretStoreOptions {
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly logger: Logger;
  /** Who the calls run as, for permission error messages. */
  readonly identityHint?: string;
  /** What to do about PERMISSION_DENIED on a resource (permission-fix.ts), when there is more to say. */
  readonly permissionFix?: (resource: string) => string | undefined;
}

const SECRET_MANAGER_API = { api: 'secretmanager.googleapis.com', service: 'Secret Manager' };

/** SecretStore over the real @google-cloud/secret-manager client (service or emulator). */
export class GoogleSecretStore implements SecretStore {
  constructor(
    private readonly client: SecretManagerServiceClient,
    private readonly options: GoogleSecretStoreOptions,
  ) {}

  async getSecret(name: string): Promise<SecretMetadata | undefined> {
    const secret = await this.call(
      'GetSecret',
      name,
      true,
      async (callOptions) => {
        const [found] = await this.client.getSecret({ name }, callOptions);
        return found;
      },
      [status.NOT_FOUND],
    );
    return secret ? metadataOf(secret) : undefined;
  }

  async createSecret(
    projectId: string,
    secretId: string,
    spec: {
      labels: Record<string, string>;
      annotations?: Record<string, string>;
      replication: Replication;
      ttlSeconds?: number;
    },
  ): Promise<SecretMetadata | 'exists'> {
    const parent = `projects/${projectId}`;
    const created = await this.call(
      'CreateSecret',
      `${parent}/secrets/${secretId}`,
      true,
      async (callOptions) => {
        const [secret] = await this.client.createSecret(
          {
            parent,
            secretId,
            secret: {
              labels: spec.labels,
              ...(spec.annotations ? { annotations: spec.annotations } : {}),
              replication: toProtoReplication(spec.replication),
              ...(spec.ttlSeconds ? { ttl: { seconds: spec.ttlSeconds } } : {}),
            },
          },
          callOptions,
        );
        return secret;
      },
      [status.ALREADY_EXISTS],
    );
    return created ? metadataOf(created) : 'exists';
  }

  async updateSecret(
    name: string,
    fields: SecretFields,
    etag: string,
  ): Promise<SecretMetadata | 'conflict' | 'gone'> {
    // The mask names exactly the fields given (proto field names), so nothing else is replaced.
    const paths = [
      ...(fields.annotations ? ['annotations'] : []),
      ...(fields.versionAliases ? ['version_aliases'] : []),
    ];
    // Not retried blindly: a lost answer may have applied the update, and a second try with the
    // old etag would then look like a conflict. The caller re-reads and decides again instead.
    let outcome: 'conflict' | 'gone' | undefined;
    const updated = await this.call(
      'UpdateSecret',
      name,
      false,
      async (callOptions) => {
        try {
          const [secret] = await this.client.updateSecret(
            {
              secret: {
                name,
                etag,
                ...(fields.annotations ? { annotations: fields.annotations } : {}),
                ...(fields.versionAliases ? { versionAliases: fields.versionAliases } : {}),
              },
              updateMask: { paths },
            },
            callOptions,
          );
          return secret;
        } catch (error) {
          const code = grpcCode(error);
          // The service answers FAILED_PRECONDITION for a stale etag (AIP-154 says ABORTED: accept both).
          if (code === status.FAILED_PRECONDITION || code === status.ABORTED) outcome = 'conflict';
          if (code === status.NOT_FOUND) outcome = 'gone';
          throw error;
        }
      },
      [status.FAILED_PRECONDITION, status.ABORTED, status.NOT_FOUND],
    );
    return updated ? metadataOf(updated) : (outcome ?? 'conflict');
  }

  async accessVersion(name: string): Promise<VersionPayload | undefined> {
    const response = await this.call(
      'AccessSecretVersion',
      name,
      true,
      async (callOptions) => {
        const [version] = await this.client.accessSecretVersion({ name }, callOptions);
        return version;
      },
      [status.NOT_FOUND, status.FAILED_PRECONDITION],
    );
    if (!response?.name) return undefined;
    const data = response.payload?.data;
    return {
      name: nameAsAsked('AccessSecretVersion', name, response.name),
      data: data === null || data === undefined ? Buffer.alloc(0) : Buffer.from(data as Uint8Array),
      crc32c: toNumber(response.payload?.dataCrc32c),
    };
  }

  async addVersion(secretName: string, data: Buffer, crc32c: number): Promise<{ name: string }> {
    const version = await this.call('AddSecretVersion', secretName, false, async (callOptions) => {
      const [added] = await this.client.addSecretVersion(
        { parent: secretName, payload: { data, dataCrc32c: crc32c } },
        callOptions,
      );
      return added;
    });
    if (!version?.name)
      throw new Error(`AddSecretVersion on ${secretName} returned no version name`);
    return { name: nameAsAsked('AddSecretVersion', secretName, version.name) };
  }

  async listVersions(secretName: string, filter?: string): Promise<VersionSummary[]> {
    const versions = await this.call(
      'ListSecretVersions',
      secretName,
      true,
      async (callOptions) => {
        const [list] = await this.client.listSecretVersions(
          { parent: secretName, ...(filter ? { filter } : {}) },
          { ...callOptions, autoPaginate: true },
        );
        return list;
      },
    );
    return (versions ?? []).flatMap((version) => {
      const name = nameAsAsked('ListSecretVersions', secretName, version.name ?? '');
      const number = versionNumberOf(name);
      const state = String(version.state);
      if (!Number.isInteger(number) || !['ENABLED', 'DISABLED', 'DESTROYED'].includes(state))
        return [];
      return [{ name, number, state: state as VersionSummary['state'] }];
    });
  }

  async destroyVersion(name: string): Promise<void> {
    await this.call(
      'DestroySecretVersion',
      name,
      true,
      async (callOptions) => {
        await this.client.destroySecretVersion({ name }, callOptions);
        return true;
      },
      [status.FAILED_PRECONDITION],
    );
  }

  async disableVersion(name: string): Promise<void> {
    await this.call(
      'DisableSecretVersion',
      name,
      true,
      async (callOptions) => {
        await this.client.disableSecretVersion({ name }, callOptions);
        return true;
      },
      [status.FAILED_PRECONDITION],
    );
  }

  async expireAfter(name: string, ttlSeconds: number): Promise<'updated' | 'gone'> {
    // Retried: setting the same ttl again only moves the expiration a little later. Without an
    // etag, so a claim or record written meanwhile never makes it fail.
    // https://cloud.google.com/secret-manager/docs/creating-and-managing-expiring-secrets
    const updated = await this.call(
      'UpdateSecret',
      name,
      true,
      async (callOptions) => {
        await this.client.updateSecret(
          { secret: { name, ttl: { seconds: ttlSeconds } }, updateMask: { paths: ['ttl'] } },
          callOptions,
        );
        return true;
      },
      [status.NOT_FOUND],
    );
    return updated ? 'updated' : 'gone';
  }

  /**
   * One logical call: per-attempt deadline, our own backoff (the client's built-in retry is off so
   * that every attempt is visible and bounded), and `expected` codes turned into `undefined`.
   */
  private async call<T>(
    operation: string,
    resource: string,
    retryable: boolean,
    attempt: (callOptions: { timeout: number; retry: null }) => Promise<T>,
    expected: readonly number[] = [],
  ): Promise<T | undefined> {
    const { logger, retry, timeoutMs } = this.options;
    try {
      return await withRetry(
        async (n) => {
          try {
            // Every attempt's answer is one entry: the API-call metrics count them (api-call-log.ts).
            return await loggedApiCall(
              logger,
              { ...SECRET_MANAGER_API, operation, attempt: n, target: { resource } },
              GRPC_CALL_STATUSES,
              () => attempt({ timeout: timeoutMs, retry: null }),
            );
          } catch (error) {
            const code = grpcCode(error);
            if (code !== undefined && expected.includes(code)) return undefined;
            throw error;
          }
        },
        {
          policy: retryable ? retry : { ...retry, attempts: 1 },
          isRetryable: isTransientGrpcError,
          onRetry: ({ error, retry: n, delayMs }) =>
            logger.warn(`Secret Manager ${operation} failed, retrying`, {
              operation,
              resource,
              retry: n,
              delay_ms: delayMs,
              code: grpcStatusName(grpcCode(error) ?? -1) ?? 'NO_RESPONSE',
            }),
        },
      );
    } catch (error) {
      const permissionFix = this.options.permissionFix?.(resource);
      throw toAdapterError(error, {
        service: 'Secret Manager',
        operation,
        resource,
        ...(this.options.identityHint ? { identityHint: this.options.identityHint } : {}),
        ...(permissionFix ? { permissionFix } : {}),
      });
    }
  }
}

function toProtoReplication(replication: Replication) {
  const cmek = (key: string | undefined, location?: string) =>
    key
      ? {
          customerManagedEncryption: {
            kmsKeyName: location ? key.replace('{location}', location) : key,
          },
        }
      : {};
  if (replication.kind === 'automatic') return { automatic: cmek(replication.kmsKeyName) };
  return {
    userManaged: {
      replicas: replication.locations.map((location) => ({
        location,
        ...cmek(replication.kmsKeyName, location),
      })),
    },
  };
}

/** A proto int64 (number, Long or string) as a number; undefined when unset. */
const toNumber = (value: unknown): number | undefined =>
  value === null || value === undefined || value === '' ? undefined : Number(String(value));

/** The client's Secret as far as SecretMetadata goes (int64 alias values may come as Long or string). */
interface ClientSecret {
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  etag?: string | null;
  versionAliases?: Record<string, unknown> | null;
  replication?: ClientReplication | null;
}

function metadataOf(secret: ClientSecret): SecretMetadata {
  const versionAliases: Record<string, number> = {};
  for (const [alias, value] of Object.entries(secret.versionAliases ?? {})) {
    const version = toNumber(value);
    if (version !== undefined && Number.isInteger(version)) versionAliases[alias] = version;
  }
  const replication = storedReplicationOf(secret.replication);
  return {
    labels: { ...(secret.labels ?? {}) },
    annotations: { ...(secret.annotations ?? {}) },
    etag: secret.etag ?? '',
    versionAliases,
    ...(replication ? { replication } : {}),
  };
}
