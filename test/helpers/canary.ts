import { randomBytes } from 'node:crypto';

/** A pull secret whose every form can be searched for in outputs. */
export interface Canary {
  readonly text: string;
  /** Every form that must never appear: the JSON, its base64, each auth, user:password, the password. */
  readonly forms: readonly string[];
}

export function canaryPullSecret(
  label: string,
  registries: readonly string[] = ['quay.io', 'registry.redhat.io'],
): Canary {
  const password = `canary-${label}-${randomBytes(9).toString('hex')}`;
  const pair = `robot-${label}:${password}`;
  const auth = Buffer.from(pair).toString('base64');
  const text = JSON.stringify({
    auths: Object.fromEntries(registries.map((r) => [r, { auth, email: 'canary@example.com' }])),
  });
  return { text, forms: [text, Buffer.from(text).toString('base64'), auth, pair, password] };
}

/**
 * The canary of a pull secret the test did not make (the stack's platform default): the same forms
 * as canaryPullSecret's, read from its `auths`.
 */
export function canaryOf(text: string): Canary {
  const auths = (JSON.parse(text) as { auths?: Record<string, { auth?: string }> }).auths ?? {};
  const credentials = [...new Set(Object.values(auths).flatMap((a) => (a.auth ? [a.auth] : [])))];
  const pairs = credentials.map((auth) => Buffer.from(auth, 'base64').toString('utf8'));
  const passwords = pairs.map((pair) => pair.slice(pair.indexOf(':') + 1));
  return {
    text,
    // An empty form would be found everywhere.
    forms: [
      text,
      Buffer.from(text).toString('base64'),
      ...credentials,
      ...pairs,
      ...passwords,
    ].filter((form) => form.length > 0),
  };
}

/** The forms of `canaries` found in `haystack` (should be none). */
export function leaks(haystack: string, canaries: readonly Canary[]): string[] {
  return canaries.flatMap((canary) =>
    canary.forms.filter((form) => haystack.includes(form)).map((form) => `${form.slice(0, 24)}…`),
  );
}
