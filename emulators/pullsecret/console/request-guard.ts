import { randomBytes, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

/** The header the console's page sends its token in, on every action. */
export const CONSOLE_TOKEN_HEADER = 'x-console-token';

/** Methods that only read: every other one is an action and needs the token. */
const READS = new Set(['GET', 'HEAD']);

/** A new token for one console start: 256 random bits, base64url (safe in HTML and headers). */
export function newConsoleToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Why the console refuses a request, or undefined when it may go on. A web page the developer
 * opens can send a body-less cross-origin POST without any CORS preflight, and can reach the
 * console under a name of its own through DNS rebinding; so:
 * - the Host must be the console's own (127.0.0.1:PORT or localhost:PORT, the port it listens on):
 *   a rebound name never matches, on reads too (the page carries the token);
 * - an action's Origin, when the browser sends one (it always does on POST/PUT/DELETE), must be the
 *   console's own;
 * - an action must carry the token of this start in `x-console-token`: a cross-origin page can
 *   neither read it nor set that header without a preflight the console never answers.
 */
export function refusal(req: http.IncomingMessage, token: string): string | undefined {
  const port = req.socket.localPort;
  const own = [`127.0.0.1:${port}`, `localhost:${port}`];
  const host = (req.headers.host ?? '').toLowerCase();
  if (!own.includes(host))
    return `Host ${host || '(none)'} is not this console's: open it as http://${own[0]}/ or http://${own[1]}/`;
  if (READS.has(req.method ?? '')) return undefined;
  const origin = req.headers.origin;
  if (origin !== undefined && !own.some((h) => origin === `http://${h}`))
    return `Origin ${origin} may not act on this console (only its own page may)`;
  const sent = Buffer.from(String(req.headers[CONSOLE_TOKEN_HEADER] ?? ''));
  const expected = Buffer.from(token);
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
    return `an action needs this console's token in ${CONSOLE_TOKEN_HEADER} (its page sends it; reload the page after a restart)`;
  return undefined;
}
