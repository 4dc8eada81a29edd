import { createHash, randomBytes } from 'node:crypto';
import { TOKEN_REUSE_MIN_REMAINING_MS, type TokenGrant } from './rules';

/** The account a token is issued for. */
export interface ServiceAccount {
  readonly email: string;
  /** The account's numeric unique id (what token info answers as `azp`, `aud` and `sub`). */
  readonly uniqueId: string;
}

/** What the emulator knows about an issued token, except the token itself. */
export interface IssuedToken extends TokenGrant {
  /** A short, non-secret name for the token: the first 12 hex digits of its SHA-256. */
  readonly id: string;
  readonly issuedAt: number;
}

interface Entry extends IssuedToken {
  readonly token: string;
}

/** Expired tokens are forgotten after this long (token info refuses them either way). */
const FORGET_AFTER_MS = 60 * 60 * 1000;

/** The non-secret name of a token, as the admin listing shows it. */
export const tokenId = (token: string) =>
  createHash('sha256').update(token).digest('hex').slice(0, 12);

/**
 * The tokens the emulator has issued: random and opaque as Google's (`ya29.` + random), each
 * recorded with its account, scopes and expiry. A token for the same account and scopes is handed
 * out again while it has more than 5 minutes left, as the real server caches them.
 */
export class TokenBook {
  private readonly entries = new Map<string, Entry>();
  /** The newest token per account and scope set (the one the cache may hand out again). */
  private readonly newest = new Map<string, string>();

  constructor(
    private lifetimeSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token for `account` with `scopes`: the cached one while it lasts, else a new one. */
  issue(account: ServiceAccount, scopes: readonly string[]): { token: string; expiresIn: number } {
    const now = this.now();
    const key = `${account.email} ${[...scopes].sort().join(' ')}`;
    const cached = this.entries.get(this.newest.get(key) ?? '');
    let entry =
      cached && cached.expiresAt - now > TOKEN_REUSE_MIN_REMAINING_MS ? cached : undefined;
    if (!entry) {
      this.forgetOld(now);
      const token = `ya29.c.${randomBytes(64).toString('base64url')}`;
      entry = {
        token,
        id: tokenId(token),
        email: account.email,
        uniqueId: account.uniqueId,
        scopes: [...scopes],
        issuedAt: now,
        expiresAt: now + this.lifetimeSeconds * 1000,
      };
      this.entries.set(token, entry);
      this.newest.set(key, token);
    }
    return { token: entry.token, expiresIn: Math.floor((entry.expiresAt - now) / 1000) };
  }

  /** What is known of a live token; undefined for an unknown or expired one. */
  lookup(token: string): IssuedToken | undefined {
    const entry = this.entries.get(token);
    if (!entry || entry.expiresAt <= this.now()) return undefined;
    return withoutToken(entry);
  }

  /** Every remembered token, oldest first, without the token values. */
  list(): IssuedToken[] {
    return [...this.entries.values()].map(withoutToken);
  }

  /** Ends every live token now (the next request gets a new one); returns how many. */
  expireAll(): number {
    const now = this.now();
    let count = 0;
    for (const [token, entry] of this.entries) {
      if (entry.expiresAt <= now) continue;
      this.entries.set(token, { ...entry, expiresAt: now });
      count++;
    }
    return count;
  }

  get lifetime(): number {
    return this.lifetimeSeconds;
  }

  /** The lifetime of tokens issued from now on (cached ones keep theirs; expire them to apply). */
  setLifetime(seconds: number): void {
    this.lifetimeSeconds = seconds;
  }

  /** Drops long-expired tokens from the oldest on (insertion order), so a mint costs O(1). */
  private forgetOld(now: number): void {
    for (const [token, entry] of this.entries) {
      if (entry.expiresAt >= now - FORGET_AFTER_MS) return;
      this.entries.delete(token);
    }
  }
}

function withoutToken(entry: Entry): IssuedToken {
  const { token: _token, ...rest } = entry;
  return { ...rest, scopes: [...rest.scopes] };
}
