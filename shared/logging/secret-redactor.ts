const REDACTED = '[REDACTED]';
/** Shorter strings are not registered: they would redact ordinary words. */
const MIN_SECRET_LENGTH = 6;

/**
 * Remembers secret strings (a pull secret, its auth strings, tokens) and removes every form of
 * them from text before it is logged. A last line of defence: code must not log secrets in the
 * first place, but a library error message that echoes a request body must not leak one either.
 */
export class SecretRedactor {
  private readonly secrets = new Set<string>();

  /** Registers a secret in its raw, base64 and (for base64 input) decoded forms. */
  register(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH) return;
    const forms = [secret, Buffer.from(secret, 'utf8').toString('base64')];
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(secret) && secret.length % 4 === 0) {
      forms.push(Buffer.from(secret, 'base64').toString('utf8'));
    }
    for (const form of forms) {
      if (form.length >= MIN_SECRET_LENGTH) this.secrets.add(form);
    }
  }

  /** Registers a dockerconfigjson's whole text and each registry's auth, user:password and password. */
  registerPullSecret(text: string): void {
    this.register(text);
    try {
      this.register(JSON.stringify(JSON.parse(text)));
      const parsed: unknown = JSON.parse(text);
      const auths = (parsed as { auths?: unknown }).auths;
      if (auths && typeof auths === 'object') {
        for (const entry of Object.values(auths as Record<string, unknown>)) {
          const auth = (entry as { auth?: unknown } | null)?.auth;
          if (typeof auth !== 'string') continue;
          this.register(auth);
          const decoded = Buffer.from(auth, 'base64').toString('utf8');
          const colon = decoded.indexOf(':');
          if (colon >= 0) this.register(decoded.slice(colon + 1));
        }
      }
    } catch {
      // Not JSON: the raw forms registered above are all there is to hide.
    }
  }

  /** Returns `text` with every registered secret replaced. */
  redactText(text: string): string {
    let result = text;
    for (const secret of this.secrets) {
      if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    }
    return result;
  }

  /** Deep copy of `value` with every string redacted. */
  redact<T>(value: T): T {
    if (this.secrets.size === 0) return value;
    return this.redactValue(value, 0) as T;
  }

  private redactValue(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.redactText(value);
    if (depth > 8 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => this.redactValue(item, depth + 1));
    if (value instanceof Error) return this.redactText(value.message);
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = this.redactValue(item, depth + 1);
    return copy;
  }
}
