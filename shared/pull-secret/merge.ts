import type { DockerConfigJson } from './validate';

/**
 * Merges an additional pull secret into the cluster's own, as HyperShift's global pull secret
 * does: every registry of both is kept and, on the same registry, the additional entry wins.
 * Fields other than `auths` come from the original.
 */
export function mergePullSecrets(
  original: DockerConfigJson,
  additional: DockerConfigJson | undefined,
): DockerConfigJson {
  if (!additional) return original;
  return { ...original, auths: { ...original.auths, ...additional.auths } };
}

/**
 * The bytes stored and pushed. Without an additional secret the original text is kept byte for
 * byte, so a user's formatting round-trips; a merge is serialised compactly.
 */
export function pullSecretBytes(
  originalText: string,
  original: DockerConfigJson,
  additional: DockerConfigJson | undefined,
): Buffer {
  if (!additional) return Buffer.from(originalText, 'utf8');
  return Buffer.from(JSON.stringify(mergePullSecrets(original, additional)), 'utf8');
}
