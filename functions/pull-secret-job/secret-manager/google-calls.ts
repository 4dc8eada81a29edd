import { grpcStatusName } from '../../../shared/gcp/grpc-status';
import { grpcCode, isTransientGrpcError, toAdapterError } from '../../../shared/gcp/grpc-failure';
import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { withRetry } from '../../../shared/retry/with-retry';
import type { Replication, SecretMetadata } from './secret-store';

export interface GoogleSecretStoreOptions {
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly logger: Logger;
  /** Who the calls run as, for permission error messages. */
  readonly identityHint?: string;
  /** What to do about PERMISSION_DENIED on a resource (permission-fix.ts), when there is more to say. */
  readonly permissionFix?: (resource: string) => string | undefined;
}

/**
 * One logical call: per-attempt deadline, our own backoff (the client's built-in retry is off so
 * that every attempt is visible and bounded), and `expected` codes turned into `undefined`.
 */
export async function callSecretManager<T>(
  options: GoogleSecretStoreOptions,
  operation: string,
  resource: string,
  retryable: boolean,
  attempt: (callOptions: { timeout: number; retry: null }) => Promise<T>,
  expected: readonly number[] = [],
): Promise<T | undefined> {
  const started = Date.now();
  const { logger, retry, timeoutMs } = options;
  try {
    const result = await withRetry(
      async () => {
        try {
          return await attempt({ timeout: timeoutMs, retry: null });
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
    logger.debug(`Secret Manager ${operation}`, {
      operation,
      resource,
      duration_ms: Date.now() - started,
    });
    return result;
  } catch (error) {
    const permissionFix = options.permissionFix?.(resource);
    throw toAdapterError(error, {
      service: 'Secret Manager',
      operation,
      resource,
      ...(options.identityHint ? { identityHint: options.identityHint } : {}),
      ...(permissionFix ? { permissionFix } : {}),
    });
  }
}

export function toProtoReplication(replication: Replication) {
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
export const toNumber = (value: unknown): number | undefined =>
  value === null || value === undefined || value === '' ? undefined : Number(String(value));

/** The client's Secret as far as SecretMetadata goes (int64 alias values may come as Long or string). */
interface ClientSecret {
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  etag?: string | null;
  versionAliases?: Record<string, unknown> | null;
}

export function metadataOf(secret: ClientSecret): SecretMetadata {
  const versionAliases: Record<string, number> = {};
  for (const [alias, value] of Object.entries(secret.versionAliases ?? {})) {
    const version = toNumber(value);
    if (version !== undefined && Number.isInteger(version)) versionAliases[alias] = version;
  }
  return {
    labels: { ...(secret.labels ?? {}) },
    annotations: { ...(secret.annotations ?? {}) },
    etag: secret.etag ?? '',
    versionAliases,
  };
}
