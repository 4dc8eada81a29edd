import { callTimeoutMs } from '../../../shared/events/delivery-deadline';
import { GrpcStatus as status } from '../../../shared/gcp/grpc-status';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { grpcCode, isTransientGrpcError, toAdapterError } from '../../../shared/gcp/grpc-failure';
import { claimFromAnnotations, type Claim } from '../../../shared/pull-secret/claim';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { withRetry } from '../../../shared/retry/with-retry';
import type { ClaimReader } from './claim-reader';

/** ClaimReader over the real Secret Manager client: one GetSecret (metadata only, no payload). */
export class SecretManagerClaimReader implements ClaimReader {
  constructor(
    private readonly client: SecretManagerServiceClient,
    private readonly options: { timeoutMs: number; retry: RetryPolicy },
  ) {}

  async read(secretPath: string): Promise<Claim | undefined> {
    try {
      const [secret] = await withRetry(
        () =>
          this.client.getSecret(
            { name: secretPath },
            { timeout: callTimeoutMs(this.options.timeoutMs, 'GetSecret'), retry: null },
          ),
        { policy: this.options.retry, isRetryable: isTransientGrpcError },
      );
      return claimFromAnnotations(secret.annotations ?? undefined);
    } catch (error) {
      if (grpcCode(error) === status.NOT_FOUND) return undefined;
      throw toAdapterError(error, {
        service: 'Secret Manager',
        operation: 'GetSecret',
        resource: secretPath,
        identityHint:
          "the reporter's service account (roles/secretmanager.viewer on hyperfleet-* secrets)",
      });
    }
  }
}
