import * as z from 'zod';
import type { AdminRoute } from '../common/admin-routes';
import { readJson, sendJson } from '../common/http';
import { lifetimeTextSchema } from './options';
import type { IssuedToken, ServiceAccount, TokenBook } from './token-book';

const lifetimeBodySchema = z.object({ lifetime: lifetimeTextSchema }).strict();

const mintBodySchema = z
  .object({
    serviceAccount: z.email(),
    scopes: z.array(z.string().regex(/^[\x21-\x7e]+$/)).min(1),
  })
  .strict();

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
 *   POST /_emulator/tokens/mint     a token for an account served here (a service agent's mint)
 */
export function metadataAdminRoutes(
  tokens: TokenBook,
  now: () => number,
  /** The accounts this server serves: the only ones a token may be minted for. */
  accounts: readonly ServiceAccount[] = [],
): AdminRoute {
  return async (req, res, path) => {
    const route = `${req.method} ${path}`;
    // A Google service agent's token for an account (IAM Credentials' generateAccessToken, as the
    // Cloud Tasks service agent mints an OAuthToken task's token): {"serviceAccount", "scopes"}
    // -> {"access_token", "expires_in", "token_type"}. Only for an account served here.
    if (route === 'POST /tokens/mint') {
      const parsed = mintBodySchema.safeParse(await readJson(req));
      if (!parsed.success) {
        sendJson(res, 400, {
          error: `Invalid mint request: ${parsed.error.issues.map((i) => i.message).join('; ')}. Expected {"serviceAccount": EMAIL, "scopes": [SCOPE]}.`,
        });
        return true;
      }
      const account = accounts.find((a) => a.email === parsed.data.serviceAccount);
      if (!account) {
        sendJson(res, 404, {
          error: `${parsed.data.serviceAccount} is not an account this metadata server serves (${accounts.map((a) => a.email).join(', ')})`,
        });
        return true;
      }
      const { token, expiresIn } = tokens.issue(account, parsed.data.scopes);
      sendJson(res, 200, { access_token: token, expires_in: expiresIn, token_type: 'Bearer' });
      return true;
    }
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
