import { createHash } from 'node:crypto';

/**
 * A stable number of `digits` digits (leading 1) derived from `seed`: what an emulator makes up
 * for a project number or an account's unique id, the same on every run for the same name.
 */
export function derivedNumber(seed: string, digits: number): string {
  const hash = BigInt(`0x${createHash('sha256').update(seed).digest('hex')}`);
  return `1${(hash % 10n ** BigInt(digits - 1)).toString().padStart(digits - 1, '0')}`;
}

/** The project number the local emulators give a project id (the metadata server's, the IAM's). */
export const derivedProjectNumber = (projectId: string) =>
  derivedNumber(`project-number:${projectId}`, 12);
