import { createHash } from 'node:crypto';

/**
 * The only trace of a pull secret that may be logged or reported: the first 12 hex characters of
 * its SHA-256, enough to tell versions apart and useless for recovering the content.
 */
export function pullSecretFingerprint(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 12);
}
