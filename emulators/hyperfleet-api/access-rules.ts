import type { IncomingHttpHeaders } from 'node:http';
import { endpointNotFound, Problem } from './problem';

// The order in which the HyperFleet API answers a request, and each step's rule:
// 1. router: an unknown path is 404 HYPERFLEET-NTF-000 and a known path with another method is
//    405, both before any authentication (the router answers them itself);
// 2. JWT (on by default in the API binary): no bearer token is 401 HYPERFLEET-AUT-001, an unknown
//    one 401 HYPERFLEET-AUT-002;
// 3. tenancy (off by default, on in the API's dev config): a system component sends
//    `<systemHeader>: true` and may only GET/list and PUT statuses; anyone else needs the required
//    `<orgHeader>` (1-63 of [A-Za-z0-9._-]); otherwise 403 HYPERFLEET-AUZ-001;
// 4. the handler (validation 400, missing cluster 404 HYPERFLEET-NTF-001, ...).

export const BASE_PATH = '/api/hyperfleet/v1';

/** The API's routes under BASE_PATH and the methods each allows. */
export type RouteName = 'clusters' | 'cluster' | 'statuses' | 'force-delete';
const ROUTES: readonly { name: RouteName; pattern: RegExp; methods: readonly string[] }[] = [
  { name: 'clusters', pattern: /^\/clusters\/?$/, methods: ['GET', 'POST'] },
  { name: 'cluster', pattern: /^\/clusters\/([^/]+)\/?$/, methods: ['GET', 'PATCH', 'DELETE'] },
  { name: 'statuses', pattern: /^\/clusters\/([^/]+)\/statuses\/?$/, methods: ['GET', 'PUT'] },
  { name: 'force-delete', pattern: /^\/clusters\/([^/]+)\/force-delete\/?$/, methods: ['POST'] },
];

/** A matched route: its name and the cluster id in the path, if any. */
export interface MatchedRoute {
  readonly name: RouteName;
  readonly clusterId?: string;
}

/** Step 1: the route for a method and path, or the router's 404 NTF-000 / 405. */
export function matchRoute(method: string, pathname: string): MatchedRoute {
  if (!pathname.startsWith(`${BASE_PATH}/`)) throw endpointNotFound(pathname);
  const rest = pathname.slice(BASE_PATH.length);
  const route = ROUTES.find((r) => r.pattern.test(rest));
  if (!route) throw endpointNotFound(pathname);
  if (!route.methods.includes(method)) {
    const hint =
      route.name === 'statuses' && method === 'POST'
        ? ' (POST on statuses was removed; use PUT /clusters/{id}/statuses)'
        : '';
    throw new Problem(
      405,
      `${method} is not allowed on ${pathname}; allowed: ${route.methods.join(', ')}${hint}`,
    );
  }
  const id = route.pattern.exec(rest)?.[1];
  return { name: route.name, ...(id ? { clusterId: decodeURIComponent(id) } : {}) };
}

/** Step 2: the caller's identity from a static token table; none when JWT is off. */
export function authenticate(
  headers: IncomingHttpHeaders,
  tokens: Readonly<Record<string, string>>,
): string | undefined {
  if (Object.keys(tokens).length === 0) return undefined;
  const header = headers.authorization;
  if (!header)
    throw new Problem(401, 'missing Authorization header', undefined, {
      type: 'authentication-error',
      title: 'Authentication Required',
      code: 'HYPERFLEET-AUT-001',
    });
  const token = /^Bearer (.+)$/.exec(header)?.[1];
  const identity = token ? tokens[token] : undefined;
  if (!identity)
    throw new Problem(
      401,
      token ? 'invalid JWT token' : 'Authorization header must use Bearer scheme',
      undefined,
      { type: 'authentication-error', title: 'Invalid Credentials', code: 'HYPERFLEET-AUT-002' },
    );
  return identity;
}

/** Tenancy settings; the header names are API configuration. */
export interface TenancyRules {
  readonly systemHeader: string;
  readonly orgHeader: string;
}

/** Who the tenancy check resolved: a system component or an organisation. */
export type Tenant = { readonly system: true } | { readonly system: false; readonly org: string };

const TENANT_VALUE = /^[A-Za-z0-9._-]{1,63}$/;
const denied = (detail: string) => new Problem(403, detail);

/** Step 3: the caller's tenant, or 403 AUZ-001; undefined when tenancy is off. */
export function resolveTenant(
  headers: IncomingHttpHeaders,
  method: string,
  route: MatchedRoute,
  rules: TenancyRules | undefined,
): Tenant | undefined {
  if (!rules) return undefined;
  const value = (name: string) => {
    const raw = headers[name.toLowerCase()];
    return Array.isArray(raw) ? raw[0] : raw;
  };
  if (value(rules.systemHeader)?.toLowerCase() === 'true') {
    const allowed = method === 'GET' || (method === 'PUT' && route.name === 'statuses');
    if (!allowed)
      throw denied(
        `A system caller (${rules.systemHeader}: true) may only read and PUT statuses; ${method} ${route.name} needs a tenant (${rules.orgHeader})`,
      );
    return { system: true };
  }
  const org = value(rules.orgHeader);
  if (org === undefined) throw denied(`Missing required tenant header ${rules.orgHeader}`);
  if (!TENANT_VALUE.test(org))
    throw denied(
      `Invalid value for tenant header ${rules.orgHeader}: must be 1-63 characters of letters, digits, ".", "_" or "-"`,
    );
  return { system: false, org };
}
