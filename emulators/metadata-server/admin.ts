import * as z from 'zod';
import type { AdminRoute } from '../common/admin-routes';
import { readJson, sendJson } from '../common/http';
import { lifetimeTextSchema } from './options';
import type { IssuedToken, TokenBook } from './token-book';

const lifetimeBodySchema = z.object({ lifetime: lifetimeTextSchema }).strict();

/** A token as the admin listing shows it: never the token, a short hash as its name. */
function summary(token: IssuedToken, now: number) {
  return {
    id: token.id,
    email: token.email,
    uniqueId: token.uniqueId,
    scopes: token.scopes,
    issuedAt: new Date(token.issuedAt).toISOString(),
    expiresAt: new Date(token.expiresAt).toISOString(),
    expired: token.expiresAt <= now,
  };
}

/**
 * The metadata server's own control routes, beside the common ones (admin-routes.ts):
 *   GET  /_emulator/tokens          the tokens issued (no token values), and the lifetime
 *   POST /_emulator/tokens/expire   ends every live token now: token info refuses them, and the
 *                                   next token request gets a new one
 *   GET|PUT /_emulator/token-lifetime  {"lifetime": "330s"}: the lifetime of tokens issued next
 */
export function metadataAdminRoutes(tokens: TokenBook, now: () => number): AdminRoute {
  return async (req, res, path) => {
    const route = `${req.method} ${path}`;
    if (route === 'GET /tokens') {
      const at = now();
      sendJson(res, 200, {
        lifetimeSeconds: tokens.lifetime,
        tokens: tokens.list().map((token) => summary(token, at)),
      });
      return true;
    }
    if (route === 'POST /tokens/expire') {
      sendJson(res, 200, { expired: tokens.expireAll() });
      return true;
    }
    if (route === 'GET /token-lifetime') {
      sendJson(res, 200, { lifetimeSeconds: tokens.lifetime });
      return true;
    }
    if (route === 'PUT /token-lifetime') {
      const parsed = lifetimeBodySchema.safeParse(await readJson(req));
      if (!parsed.success) {
        sendJson(res, 400, {
          error: `Invalid token lifetime: ${parsed.error.issues.map((i) => i.message).join('; ')}. Expected {"lifetime": "330s"} (1s to 12h).`,
        });
        return true;
      }
      tokens.setLifetime(parsed.data.lifetime);
      sendJson(res, 200, { lifetimeSeconds: tokens.lifetime });
      return true;
    }
    return false;
  };
}
