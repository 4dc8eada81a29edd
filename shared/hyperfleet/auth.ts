import fs from 'node:fs';

/** Supplies the Authorization header for HyperFleet API calls (or none). */
export interface AuthHeaderProvider {
  authorization(url: string): Promise<string | undefined>;
}

/** Development mode: the API has JWT disabled. */
export class NoAuth implements AuthHeaderProvider {
  async authorization(): Promise<undefined> {
    return undefined;
  }
}

/**
 * A bearer token read from a file, re-read when the file changes: projected service account
 * tokens rotate in place.
 */
export class TokenFileAuth implements AuthHeaderProvider {
  private cached?: { mtimeMs: number; size: number; token: string };

  constructor(private readonly path: string) {}

  async authorization(): Promise<string> {
    const stat = await fs.promises.stat(this.path);
    if (!this.cached || this.cached.mtimeMs !== stat.mtimeMs || this.cached.size !== stat.size) {
      const token = (await fs.promises.readFile(this.path, 'utf8')).trim();
      if (token === '') throw new Error(`HYPERFLEET_API_AUTH_TOKEN_PATH: ${this.path} is empty`);
      this.cached = { mtimeMs: stat.mtimeMs, size: stat.size, token };
    }
    return `Bearer ${this.cached.token}`;
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
