import { isFailureKind } from '../../../shared/errors';
import { crc32c } from '../../../shared/gcp/crc32c';
import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { withRetry } from '../../../shared/retry/with-retry';
import type { SecretStore } from './secret-store';

/** The version holding the bytes; `adopted` when a retry found it rather than AddSecretVersion answering it. */
export interface AddedVersion {
  readonly name: string;
  readonly adopted: boolean;
}

/**
 * Adds the version with its CRC32C, retrying transient failures. The server checks data_crc32c and
 * refuses a mismatch (INVALID_ARGUMENT), so the bytes stored are the bytes sent: no read-back.
 * Before each retry it re-reads `latest`: a call that timed out may still have been applied, and
 * adding again would create a duplicate version. A version found that way is `adopted`: it holds
 * these bytes, but another execution with the same bytes may have added it, so it is never ours
 * to withdraw (publish-version.ts).
 */
export async function addVersionOnce(
  store: SecretStore,
  secretPath: string,
  data: Buffer,
  options: { logger: Logger; retry: RetryPolicy },
): Promise<AddedVersion> {
  const checksum = crc32c(data);
  const added = await withRetry(
    async (attempt): Promise<AddedVersion> => {
      if (attempt > 1) {
        const latest = await store.accessVersion(`${secretPath}/versions/latest`);
        if (latest?.data.equals(data)) return { name: latest.name, adopted: true };
      }
      return { name: (await store.addVersion(secretPath, data, checksum)).name, adopted: false };
    },
    {
      policy: options.retry,
      isRetryable: (error) => isFailureKind(error, 'transient'),
      onRetry: ({ retry, delayMs }) =>
        options.logger.warn('AddSecretVersion failed, checking before retrying', {
          operation: 'add-secret-version',
          retry,
          delay_ms: delayMs,
        }),
    },
  );
  options.logger.info('Added secret version', {
    operation: 'add-secret-version',
    version: added.name,
    bytes: data.length,
  });
  return added;
}
