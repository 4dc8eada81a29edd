import { status } from '@grpc/grpc-js';
import { GrpcError } from '../common/grpc-error';

/** Secret Manager's documented limits, enforced as the service enforces them. */
export const MAX_PAYLOAD_BYTES = 65_536;
export const MAX_LABELS = 64;
const SECRET_ID = /^[A-Za-z0-9_-]{1,255}$/;
const LABEL_KEY = /^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$/u;
const LABEL_VALUE = /^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$/u;
const PROJECT_PARENT = /^projects\/[^/]+$/;

const invalid = (message: string) => new GrpcError(status.INVALID_ARGUMENT, message);

export function checkParent(parent: string | undefined): string {
  if (!parent || !PROJECT_PARENT.test(parent)) {
    throw invalid(
      `Invalid resource field value in the request. parent [${parent ?? ''}] must be projects/{project}.`,
    );
  }
  return parent;
}

export function checkSecretId(secretId: string | undefined): string {
  if (!secretId || !SECRET_ID.test(secretId)) {
    throw invalid(
      'Secret ID must be 1-255 characters of letters, numbers, underscores and hyphens.',
    );
  }
  return secretId;
}

export function checkLabels(labels: Record<string, string> | undefined): Record<string, string> {
  const entries = Object.entries(labels ?? {});
  if (entries.length > MAX_LABELS) throw invalid(`A secret can have at most ${MAX_LABELS} labels.`);
  for (const [key, value] of entries) {
    if (!LABEL_KEY.test(key)) {
      throw invalid(
        `Invalid label key [${key}]: keys must start with a lowercase letter and contain at most 63 lowercase letters, numbers, underscores or hyphens.`,
      );
    }
    if (!LABEL_VALUE.test(value)) {
      throw invalid(
        `Invalid value for label [${key}]: values may contain at most 63 lowercase letters, numbers, underscores or hyphens.`,
      );
    }
  }
  return Object.fromEntries(entries);
}

export function checkPayload(data: Buffer | undefined): Buffer {
  const bytes = data ?? Buffer.alloc(0);
  if (bytes.length > MAX_PAYLOAD_BYTES) {
    throw invalid(
      `Secret payload data must be at most ${MAX_PAYLOAD_BYTES} bytes; got ${bytes.length}.`,
    );
  }
  return bytes;
}

/** Splits `projects/P/secrets/S[/versions/V]`; throws INVALID_ARGUMENT for other shapes. */
export function parseSecretName(name: string | undefined): { secret: string; version?: string } {
  const match = /^(projects\/[^/]+\/secrets\/[^/]+)(?:\/versions\/([^/]+))?$/.exec(name ?? '');
  if (!match) throw invalid(`Invalid resource name [${name ?? ''}].`);
  return { secret: match[1]!, ...(match[2] ? { version: match[2] } : {}) };
}
