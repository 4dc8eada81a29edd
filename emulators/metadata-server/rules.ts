import * as z from 'zod';

// How the metadata server of a Cloud Run instance answers, and how Google's token-info endpoint
// describes the tokens it hands out. Sources:
// [Q] Compute Engine, "View and query VM metadata":
//     https://cloud.google.com/compute/docs/metadata/querying-metadata
//     every request carries `Metadata-Flavor: Google` or is denied; a request with
//     `X-Forwarded-For` is rejected (proxied, so maybe not from the workload); answers carry
//     `Metadata-Flavor: Google`; a trailing slash names a directory, `?recursive=true` its JSON.
// [T] Compute Engine, "Troubleshooting metadata server access":
//     https://cloud.google.com/compute/docs/troubleshooting/troubleshoot-metadata-server
//     403 for a request that fails the security checks, 404 for a path that does not exist,
//     400 for bad query parameters, 503 for a moment during maintenance (inject it as a fault).
// [C] Cloud Run, "Container runtime contract", instance metadata server:
//     https://cloud.google.com/run/docs/container-contract#metadata-server
//     project/project-id, project/numeric-project-id, instance/region
//     (`projects/PROJECT-NUMBER/regions/REGION`), instance/id, instance/zone (Cloud Run does not
//     say which zone: always `projects/PROJECT-NUMBER/zones/REGION-1`), and per service account
//     email and token (and identity, for ID tokens, which this emulator does not serve).
// [S] Cloud Run (Knative serving) service identity:
//     https://cloud.google.com/anthos/run/archive/docs/securing/service-identity
//     "By default, access tokens have the cloud-platform scope"; `?scopes=` takes a comma
//     separated list on Cloud Run. The current Cloud Run page no longer states the default.
// [A] Compute Engine, "Authenticate workloads":
//     https://cloud.google.com/compute/docs/access/authenticate-workloads#applications
//     the server caches a token until it has 5 minutes left, then issues a new one.
// [I] Google's token info, https://oauth2.googleapis.com/tokeninfo (the endpoint
//     google-auth-library's OAuth2Client.getTokenInfo POSTs to, token as `Authorization: Bearer`;
//     also `?access_token=` or a form body). Its fields for an access token are strings: azp,
//     aud, scope (space separated), exp (epoch seconds), expires_in, access_type; `sub`, `email`
//     and `email_verified` only with an identity scope (a service account's v1 tokeninfo shows
//     its user_id and email with `userinfo.email`; without it, none). Errors are 400
//     `invalid_token`: "Invalid Value" (unknown or expired), "Either access_token, id_token, or
//     token_handle required" (none given). Wordings as Google answers them, recorded in public
//     client code; no reference page lists them.
// Observed, not documented: the 403/404/405 bodies are Google's HTML error page with the
// wordings below (the 403 one is GCE's, seen in GKE labs); answers carry
// `Server: Metadata Server for VM`. Whether Cloud Run's own server words them the same is unknown.

/** The header of [Q]: required on every request, present on every answer. */
export const METADATA_FLAVOR_HEADER = 'metadata-flavor';
export const METADATA_FLAVOR_VALUE = 'Google';

/** Where the metadata tree starts (gcp-metadata's BASE_PATH). */
export const BASE_PATH = '/computeMetadata/v1';

/** The token-info endpoint; not gated by Metadata-Flavor (it stands for oauth2.googleapis.com). */
export const TOKENINFO_PATH = '/tokeninfo';

export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
export const USERINFO_EMAIL_SCOPE = 'https://www.googleapis.com/auth/userinfo.email';
/** A token without `?scopes=` gets cloud-platform only ([S]). */
export const DEFAULT_SCOPES: readonly string[] = [CLOUD_PLATFORM_SCOPE];
/** Scopes that make token info name the account (`sub`); the first two also add its email. */
const EMAIL_SCOPES = new Set([USERINFO_EMAIL_SCOPE, 'email']);
const IDENTITY_SCOPES = new Set([
  ...EMAIL_SCOPES,
  'openid',
  'profile',
  'https://www.googleapis.com/auth/userinfo.profile',
]);

/** Google issues service account tokens for 3599 s (expires_in of a fresh token). */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 3599;
/** A cached token is handed out again while it has more than this left ([A]). */
export const TOKEN_REUSE_MIN_REMAINING_MS = 5 * 60 * 1000;

/** Answer headers of the metadata server ([Q]; Server observed). */
export const METADATA_HEADERS: Readonly<Record<string, string>> = {
  'Metadata-Flavor': METADATA_FLAVOR_VALUE,
  Server: 'Metadata Server for VM',
};

/** One answer of this emulator, before the request log and the metadata headers. */
export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Text as it may appear inside the error page's HTML. */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** Google's HTML error page, as the metadata server sends it (observed wording). */
export function errorPage(status: 403 | 404 | 405, sentence: string): Answer {
  const title = { 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed' }[status];
  return {
    status,
    contentType: 'text/html; charset=UTF-8',
    body: [
      '<!DOCTYPE html>',
      '<html lang=en>',
      '  <meta charset=utf-8>',
      `  <title>Error ${status} (${title})!!1</title>`,
      `  <p><b>${status}.</b> <ins>That’s an error.</ins>`,
      `  <p>${sentence} <ins>That’s all we know.</ins>`,
      '',
    ].join('\n'),
    ...(status === 405 ? { headers: { Allow: 'GET' } } : {}),
  };
}

/** The security checks of [Q], in order: no proxy header, then the flavor header; GET only. */
export function checkRequest(
  method: string,
  path: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Answer | undefined {
  const url = `<code>${escapeHtml(path)}</code>`;
  if (headers['x-forwarded-for'] !== undefined)
    return errorPage(
      403,
      `Your client does not have permission to get URL ${url} from this server.`,
    );
  if (headers[METADATA_FLAVOR_HEADER] !== METADATA_FLAVOR_VALUE)
    return errorPage(
      403,
      `Your client does not have permission to get URL ${url} from this server. Missing Metadata-Flavor:Google header.`,
    );
  if (method !== 'GET')
    return errorPage(
      405,
      `The request method <code>${escapeHtml(method)}</code> is inappropriate for the URL ${url}.`,
    );
  return undefined;
}

export const notFound = (path: string) =>
  errorPage(
    404,
    `The requested URL <code>${escapeHtml(path)}</code> was not found on this server.`,
  );

/** A 400 for a query parameter this server does not accept ([T]; wording not Google's). */
export const badQuery = (message: string): Answer => ({
  status: 400,
  contentType: 'text/plain; charset=utf-8',
  body: `${message}\n`,
});

/** `?scopes=a,b` as gcp-metadata sends it; absent or empty means the default scopes. */
export const tokenQuerySchema = z.object({
  scopes: z
    .string()
    .optional()
    .transform((text) => [...new Set((text ?? '').split(',').map((s) => s.trim()))])
    .transform((list) => list.filter((scope) => scope !== ''))
    .refine((list) => list.every((scope) => /^[\x21-\x7e]+$/.test(scope)), {
      message: 'scopes must be a comma-separated list of scope URLs without spaces',
    }),
});

/** `?recursive=true|false` and `?alt=json|text` on a directory ([Q]). */
export const directoryQuerySchema = z.object({
  recursive: z
    .enum(['true', 'false', 'True', 'False'], { message: 'recursive must be true or false' })
    .optional()
    .transform((value) => value?.toLowerCase() === 'true'),
  alt: z.enum(['json', 'text'], { message: 'alt must be json or text' }).optional(),
});

/** What token info needs to know about one token. */
export interface TokenGrant {
  readonly email: string;
  readonly uniqueId: string;
  readonly scopes: readonly string[];
  readonly expiresAt: number;
}

/** Token info of a live token, field for field as [I] answers for a service account's token. */
export function tokenInfoBody(grant: TokenGrant, nowMs: number): Record<string, string> {
  const identity = grant.scopes.some((scope) => IDENTITY_SCOPES.has(scope));
  const email = grant.scopes.some((scope) => EMAIL_SCOPES.has(scope));
  return {
    azp: grant.uniqueId,
    aud: grant.uniqueId,
    ...(identity ? { sub: grant.uniqueId } : {}),
    scope: grant.scopes.join(' '),
    exp: String(Math.floor(grant.expiresAt / 1000)),
    expires_in: String(Math.max(0, Math.floor((grant.expiresAt - nowMs) / 1000))),
    ...(email ? { email: grant.email, email_verified: 'true' } : {}),
    access_type: 'online',
  };
}

/** Token info's refusals ([I]). */
export const tokenInfoError = (description: 'invalid' | 'missing'): Answer => ({
  status: 400,
  contentType: 'application/json; charset=UTF-8',
  body: JSON.stringify({
    error: 'invalid_token',
    error_description:
      description === 'invalid'
        ? 'Invalid Value'
        : 'Either access_token, id_token, or token_handle required',
  }),
});
