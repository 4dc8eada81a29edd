import { secretForms } from './secret-forms';

const REDACTED = '[REDACTED]';
/**
 * Shorter forms are redacted only where they stand on their own (not inside a longer word or
 * number): anywhere, a short password would redact ordinary words.
 */
const MIN_SECRET_LENGTH = 6;
/** A letter, digit or underscore: what a short secret must not touch to count as standing alone. */
const WORD = '[\\p{L}\\p{N}_]';
/** The fields of a dockerconfigjson registry entry that hold credentials. */
const CREDENTIAL_FIELDS = ['auth', 'password', 'identitytoken', 'registrytoken'] as const;

/**
 * Remembers secret strings (a pull secret, its auth strings, tokens) and removes every form of
 * them (secret-forms.ts) from text before it is logged. A last line of defence: code must not log
 * secrets in the first place, but a library error message that echoes a request body must not
 * leak one either.
 */
export class SecretRedactor {
  /** Forms redacted wherever they appear, longest first once sorted. */
  private readonly anywhere = new Set<string>();
  /** Short textual forms, redacted where they stand alone. */
  private readonly standalone = new Set<string>();
  private compiled?: { anywhere: string[]; standalone?: RegExp };

  /**
   * Registers a secret in every written form; a base64 secret (an auth string) also as the text it
   * decodes to (user:password).
   */
  register(secret: string | undefined): void {
    if (!secret) return;
    this.registerForms(secret);
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(secret) && secret.length % 4 === 0) {
      const decoded = Buffer.from(secret, 'base64').toString('utf8');
      // Only text that round-trips: random base64 (a token) decodes to bytes no log shows as text.
      if (decoded && Buffer.from(decoded, 'utf8').toString('base64') === secret)
        this.registerForms(decoded);
    }
  }

  /**
   * Registers a dockerconfigjson's whole text (as given and re-serialized) and, for each registry,
   * its auth, user:password, password, identity token and registry token.
   */
  registerPullSecret(text: string): void {
    this.register(text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return; // Not JSON: the forms of the text registered above are all there is to hide.
    }
    this.register(JSON.stringify(parsed));
    this.register(JSON.stringify(parsed, null, 2));
    const auths = (parsed as { auths?: unknown } | null)?.auths;
    if (!auths || typeof auths !== 'object') return;
    for (const entry of Object.values(auths as Record<string, unknown>)) {
      if (!entry || typeof entry !== 'object') continue;
      for (const field of CREDENTIAL_FIELDS) {
        const value = (entry as Record<string, unknown>)[field];
        if (typeof value === 'string') this.register(value);
      }
      const auth = (entry as { auth?: unknown }).auth;
      if (typeof auth !== 'string') continue;
      const decoded = Buffer.from(auth, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0) this.register(decoded.slice(colon + 1));
    }
  }

  /** Returns `text` with every form of every registered secret replaced. */
  redactText(text: string): string {
    const { anywhere, standalone } = this.compile();
    let result = text;
    for (const secret of anywhere) {
      if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    }
    return standalone ? result.replace(standalone, REDACTED) : result;
  }

  /**
   * Deep copy of `value` with every string redacted, at any depth (iterative: a deep object cannot
   * overflow the stack), cycles and shared parts kept. Bytes (Buffer, typed arrays) holding a
   * secret become a Buffer of the redacted text; an Error becomes its redacted message.
   */
  redact<T>(value: T): T {
    if (this.anywhere.size === 0 && this.standalone.size === 0) return value;
    return this.copy(value, (view) => this.redactBytes(view)) as T;
  }

  /**
   * As redact, for a printout (a crash): bytes become their redacted text, which util.inspect
   * would otherwise print as hex that no text-level redaction recognises.
   */
  printable(value: unknown): unknown {
    return this.copy(value, (view) => this.redactText(utf8(view)));
  }

  private copy(value: unknown, bytes: (view: ArrayBufferView) => unknown): unknown {
    const copies = new Map<object, unknown>();
    const pending: (() => void)[] = [];
    const visit = (item: unknown): unknown => {
      if (typeof item === 'string') return this.redactText(item);
      if (item === null || typeof item !== 'object' || item instanceof Date) return item;
      if (ArrayBuffer.isView(item)) return bytes(item);
      if (item instanceof Error) return this.redactText(item.message);
      const known = copies.get(item);
      if (known !== undefined) return known;
      const copy: Record<string, unknown> | unknown[] = Array.isArray(item) ? [] : {};
      copies.set(item, copy);
      pending.push(() => {
        for (const [key, child] of Object.entries(item))
          (copy as Record<string, unknown>)[key] = visit(child);
      });
      return copy;
    };
    const result = visit(value);
    while (pending.length > 0) pending.pop()!();
    return result;
  }

  private redactBytes(view: ArrayBufferView): unknown {
    const text = utf8(view);
    const redacted = this.redactText(text);
    return redacted === text ? view : Buffer.from(redacted, 'utf8');
  }

  private registerForms(secret: string): void {
    for (const { form, textual } of secretForms(secret)) {
      if (form.length >= MIN_SECRET_LENGTH) this.anywhere.add(form);
      else if (form.length > 0 && textual) this.standalone.add(form);
    }
    this.compiled = undefined;
  }

  /** The forms in the order they are replaced: longest first, so a part never breaks a whole. */
  private compile(): { anywhere: string[]; standalone?: RegExp } {
    if (this.compiled) return this.compiled;
    const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const shorts = [...this.standalone].sort((a, b) => b.length - a.length).map(escape);
    this.compiled = {
      anywhere: [...this.anywhere].sort((a, b) => b.length - a.length),
      ...(shorts.length > 0
        ? { standalone: new RegExp(`(?<!${WORD})(?:${shorts.join('|')})(?!${WORD})`, 'gu') }
        : {}),
    };
    return this.compiled;
  }
}

const utf8 = (view: ArrayBufferView) =>
  Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('utf8');
