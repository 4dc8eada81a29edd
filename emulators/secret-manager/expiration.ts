import { status } from '@grpc/grpc-js';
import { GrpcError } from '../common/grpc-error';

// Secret expiration, as Secret Manager documents it:
// - Secret.expiration is a oneof of `expire_time` (a Timestamp) and `ttl` (a Duration, input
//   only); "expire_time ... is always provided on output, regardless of what was sent on input"
//   (google/cloud/secretmanager/v1/resources.proto, Secret; REST:
//   https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets).
// - "At a secret's configured expiration time, it is automatically deleted", with every version,
//   irreversibly; "an expiration can be added, updated, or removed from a secret at any time"
//   (UpdateSecret with `ttl` or `expire_time` in update_mask; the field left empty removes it);
//   "a secret's expiration cannot be less than 60 seconds away or more than 100 years away"
//   (https://cloud.google.com/secret-manager/docs/creating-and-managing-expiring-secrets).

const MIN_AWAY_MS = 60_000;
const MAX_AWAY_MS = 100 * 365.25 * 24 * 3600_000;

/** The update_mask paths that set or remove a secret's expiration. */
export const EXPIRATION_PATHS: readonly string[] = ['ttl', 'expire_time'];

/** A google.protobuf.Duration or Timestamp as proto-loader gives it (int64 seconds as a string). */
interface ProtoSeconds {
  seconds?: string | number;
  nanos?: number;
}

/** The expiration fields of a Secret in a request. */
export interface ProtoExpiration {
  ttl?: ProtoSeconds | null;
  expire_time?: ProtoSeconds | null;
}

const millis = (value: ProtoSeconds): number =>
  Number(value.seconds ?? 0) * 1000 + Math.floor((value.nanos ?? 0) / 1_000_000);

/**
 * When the secret expires (ISO time), from `ttl` (counted from `now`) or `expire_time`; undefined
 * when the request sets neither (no expiration, or the expiration removed). INVALID_ARGUMENT
 * outside the documented window.
 */
export function expirationOf(secret: ProtoExpiration | undefined, now: Date): string | undefined {
  const at = secret?.ttl
    ? now.getTime() + millis(secret.ttl)
    : secret?.expire_time
      ? millis(secret.expire_time)
      : undefined;
  if (at === undefined) return undefined;
  const away = at - now.getTime();
  if (!Number.isFinite(away) || away < MIN_AWAY_MS || away > MAX_AWAY_MS)
    throw new GrpcError(
      status.INVALID_ARGUMENT,
      "A secret's expiration must be at least 60 seconds and at most 100 years in the future.",
    );
  return new Date(at).toISOString();
}

/** Whether a secret with this expiration is gone at `now` (deleted by the service itself). */
export const hasExpired = (expireTime: string | undefined, now: Date): boolean =>
  expireTime !== undefined && Date.parse(expireTime) <= now.getTime();
