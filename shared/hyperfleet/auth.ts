import fs from 'node:fs';

/** Supplies the Authorization header for HyperFleet API calls (or none). */
export interface AuthHeaderProvider {
  authorization(url: string): Promise<string | undefined>;
  /** Drops a cached credential the API refused (401), so that the next call reads a fresh one. */
  refresh?(): void;
}

/** Development mode: the API has JWT disabled. */
export class NoAuth implements AuthHeaderProvider {
  async authorization(): Promise<undefined> {
    return undefined;
  }
}

/**
 * How long a token read from its file is used before the file is read again. The file's stat says
 * nothing reliable: a Cloud Run secret volume fetches the secret from Secret Manager on every read
 * of the file and reports a fresh mtime each time (pomerium/pomerium#5079), so an mtime-keyed cache
 * would never hit (one Secret Manager access per API call); and a token rotated in place with the
 * same length and mtime would never be noticed. So the cache is bounded in time only, and a 401
 * drops it at once (refresh), whatever the file says.
 */
export const TOKEN_FILE_MAX_AGE_MS = 60_000;

export interface TokenFileOptions {
  readonly maxAgeMs?: number;
  /** Injectable for tests: the clock and the file read (a counting wrapper around the real one). */
  readonly now?: () => number;
  readonly readFile?: (path: string) => Promise<string>;
}

/** A bearer token read from a file (a secret volume, a projected token) that rotates in place. */
export class TokenFileAuth implements AuthHeaderProvider {
  private cached?: { readAtMs: number; token: string };
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private readonly readFile: (path: string) => Promise<string>;

  constructor(
    private readonly path: string,
    options: TokenFileOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? TOKEN_FILE_MAX_AGE_MS;
    this.now = options.now ?? Date.now;
    this.readFile = options.readFile ?? ((file) => fs.promises.readFile(file, 'utf8'));
  }

  async authorization(): Promise<string> {
    const now = this.now();
    if (!this.cached || now - this.cached.readAtMs >= this.maxAgeMs) {
      const token = (await this.readFile(this.path)).trim();
      if (token === '') throw new Error(`HYPERFLEET_API_AUTH_TOKEN_PATH: ${this.path} is empty`);
      this.cached = { readAtMs: now, token };
    }
    return `Bearer ${this.cached.token}`;
  }

  refresh(): void {
    this.cached = undefined;
  }
}

/** A Google-signed ID token for `audience`, for an API behind Cloud Run or IAP (cached by the library). */
export class GoogleIdTokenAuth implements AuthHeaderProvider {
  private client?: Promise<{
    getRequestHeaders(url?: string): Promise<Headers | Record<string, string>>;
  }>;

  constructor(private readonly audience: string) {}

  async authorization(url: string): Promise<string | undefined> {
    this.client ??= import('../gcp/lazy/google-auth.js').then(({ GoogleAuth }) =>
      new GoogleAuth().getIdTokenClient(this.audience),
    );
    const headers = await (await this.client).getRequestHeaders(url);
    return headers instanceof Headers
      ? (headers.get('authorization') ?? undefined)
      : headers.Authorization;
  }
}
