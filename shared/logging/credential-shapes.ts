const REDACTED = '[REDACTED]';

/**
 * Credentials recognised by their shape, for text whose secrets nobody registered: a function
 * reads every tenant's pull secret and rotating tokens, and a crash may print any of them. One
 * entry per shape; each keeps the surrounding text so the line still says what was there.
 */
const SHAPES: readonly { readonly shape: string; readonly pattern: RegExp; readonly by: string }[] =
  [
    {
      // The closing quote carries as many backslashes as the opening one: found at any level of
      // JSON quoting, and an escaped quote inside the value does not end it.
      shape: 'a dockerconfigjson credential field, at any level of JSON quoting',
      pattern:
        /(\\*)"(auth|password|identitytoken|registrytoken)\1"(\s*):(\s*)\1"[\s\S]*?(?<!\\)\1"/gi,
      by: `$1"$2$1"$3:$4$1"${REDACTED}$1"`,
    },
    {
      shape: 'base64 of a dockerconfigjson (it starts {"auths":)',
      pattern: /eyJhdXRocyI6[A-Za-z0-9+/_-]*={0,2}/g,
      by: REDACTED,
    },
    {
      shape: 'an Authorization header value',
      pattern: /\b(Bearer|Basic)(\s+|%20)[A-Za-z0-9._~+/=-]+/g,
      by: `$1$2${REDACTED}`,
    },
    {
      shape: 'a JWT (Google ID tokens, Kubernetes service account tokens)',
      pattern: /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g,
      by: REDACTED,
    },
    { shape: 'a Google OAuth access token', pattern: /\bya29\.[A-Za-z0-9._-]+/g, by: REDACTED },
    {
      shape: 'the password of a URL (scheme://user:password@host)',
      pattern: /(\/\/[^/\s:@]+:)[^/\s@]+@/g,
      by: `$1${REDACTED}@`,
    },
  ];

/** `text` with every credential-shaped part replaced (see SHAPES). */
export function redactCredentialShapes(text: string): string {
  return SHAPES.reduce((result, { pattern, by }) => result.replace(pattern, by), text);
}
