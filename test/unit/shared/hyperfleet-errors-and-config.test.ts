import * as z from 'zod';
import { parseEnv } from '../../../shared/config/parse-env';
import {
  callerHeaders,
  hyperFleetApiEnvShape,
  toHyperFleetApiConfig,
} from '../../../shared/hyperfleet/config';
import {
  errorForStatus,
  HyperFleetEndpointError,
  HyperFleetInvalidRequestError,
  HyperFleetNotFoundError,
  HyperFleetUnauthorizedError,
  HyperFleetUnavailableError,
} from '../../../shared/hyperfleet/errors';

describe('errorForStatus', () => {
  it.each([
    [undefined, HyperFleetUnavailableError, 'transient'],
    [500, HyperFleetUnavailableError, 'transient'],
    [503, HyperFleetUnavailableError, 'transient'],
    [408, HyperFleetUnavailableError, 'transient'],
    [429, HyperFleetUnavailableError, 'transient'],
    [404, HyperFleetEndpointError, 'transient'],
    [401, HyperFleetUnauthorizedError, 'permanent'],
    [403, HyperFleetUnauthorizedError, 'permanent'],
    [400, HyperFleetInvalidRequestError, 'permanent'],
    [409, HyperFleetInvalidRequestError, 'permanent'],
    [405, HyperFleetInvalidRequestError, 'permanent'],
  ])('%s -> %p (%s)', (status, type, kind) => {
    const error = errorForStatus({
      method: 'GET',
      path: '/clusters/x',
      ...(status ? { status } : {}),
      code: 'HYPERFLEET-X',
      detail: 'why',
    });
    expect(error).toBeInstanceOf(type);
    expect((error as HyperFleetUnavailableError).kind).toBe(kind);
    expect(error.message).toContain('HyperFleet API GET /clusters/x failed');
  });
});

describe('errorForStatus on 404: only NTF-001 means the cluster is gone', () => {
  const notFound = (code?: string) =>
    errorForStatus({
      method: 'GET',
      path: '/clusters/c1',
      url: 'http://api:8000/api/hyperfleet/v2/clusters/c1',
      status: 404,
      ...(code ? { code } : {}),
    });
  it.each(['HYPERFLEET-NTF-001', 'HYPERFLEET-NTF-002'])('%s: the cluster is gone', (code) => {
    expect(notFound(code)).toBeInstanceOf(HyperFleetNotFoundError);
  });
  it.each([
    ['HYPERFLEET-NTF-000 (the router: no such route)', 'HYPERFLEET-NTF-000'],
    ['a 404 without a problem body (something else answered)', undefined],
    ['another code', 'HYPERFLEET-NTF-003'],
  ])('%s: a loud, redelivered configuration error naming the URL', (_name, code) => {
    const error = notFound(code);
    expect(error).toBeInstanceOf(HyperFleetEndpointError);
    expect((error as HyperFleetEndpointError).kind).toBe('transient');
    expect(error.message).toContain('http://api:8000/api/hyperfleet/v2/clusters/c1');
    expect(error.message).toMatch(/check HYPERFLEET_API_BASE_URL .* and HYPERFLEET_API_VERSION/);
  });
  it('401 names the token settings; 403 names the tenancy settings', () => {
    const fail = (status: number, code: string) =>
      errorForStatus({ method: 'PUT', path: '/clusters/c1/statuses', status, code }).message;
    expect(fail(401, 'HYPERFLEET-AUT-001')).toMatch(
      /401 HYPERFLEET-AUT-001.*HYPERFLEET_API_AUTH_TOKEN_PATH.*HYPERFLEET_API_AUDIENCE/,
    );
    expect(fail(403, 'HYPERFLEET-AUZ-001')).toMatch(
      /403 HYPERFLEET-AUZ-001.*HYPERFLEET_API_SYSTEM_HEADER.*HYPERFLEET_API_ORG/,
    );
  });
});

describe('HyperFleet API configuration', () => {
  const schema = z.object(hyperFleetApiEnvShape);
  it('uses HyperFleet names and defaults', () => {
    const config = toHyperFleetApiConfig(
      parseEnv(schema, { HYPERFLEET_API_BASE_URL: 'https://api:8000/' }, 'test'),
    );
    expect(config).toEqual({
      baseUrl: 'https://api:8000',
      version: 'v1',
      timeoutMs: 10_000,
      retryAttempts: 3,
      auth: { kind: 'none' },
      caller: { kind: 'system', header: 'X-HyperFleet-System' },
    });
    expect(
      toHyperFleetApiConfig(
        parseEnv(
          schema,
          {
            HYPERFLEET_API_BASE_URL: 'https://api',
            HYPERFLEET_API_AUTH_TOKEN_PATH: '/var/run/token',
          },
          'test',
        ),
      ).auth,
    ).toEqual({ kind: 'token-file', path: '/var/run/token' });
    expect(
      toHyperFleetApiConfig(
        parseEnv(
          schema,
          { HYPERFLEET_API_BASE_URL: 'https://api', HYPERFLEET_API_AUDIENCE: 'https://api' },
          'test',
        ),
      ).auth,
    ).toEqual({ kind: 'google-id-token', audience: 'https://api' });
  });
  it('calls as a system component by default, as a tenant with HYPERFLEET_API_ORG, or with no tenancy header', () => {
    const caller = (env: Record<string, string>) =>
      toHyperFleetApiConfig(
        parseEnv(schema, { HYPERFLEET_API_BASE_URL: 'https://api', ...env }, 'test'),
      ).caller;
    expect(caller({ HYPERFLEET_API_SYSTEM_HEADER: 'X-Fleet-System' })).toEqual({
      kind: 'system',
      header: 'X-Fleet-System',
    });
    expect(caller({ HYPERFLEET_API_ORG: 'acme' })).toEqual({
      kind: 'org',
      header: 'X-HyperFleet-Org',
      org: 'acme',
    });
    expect(
      caller({ HYPERFLEET_API_ORG: 'acme', HYPERFLEET_API_ORG_HEADER: 'X-Tenant-Org' }),
    ).toEqual({ kind: 'org', header: 'X-Tenant-Org', org: 'acme' });
    expect(caller({ HYPERFLEET_API_SYSTEM_HEADER: 'none' })).toEqual({ kind: 'none' });
    expect(caller({ HYPERFLEET_API_SYSTEM_HEADER: '' })).toEqual({
      kind: 'system',
      header: 'X-HyperFleet-System',
    });
    expect(callerHeaders({ kind: 'system', header: 'X-HyperFleet-System' })).toEqual({
      'X-HyperFleet-System': 'true',
    });
  });
  it.each([
    [{}, /HYPERFLEET_API_BASE_URL/],
    [{ HYPERFLEET_API_BASE_URL: 'https://x', HYPERFLEET_API_ORG: 'a b' }, /HYPERFLEET_API_ORG/],
    [
      { HYPERFLEET_API_BASE_URL: 'https://x', HYPERFLEET_API_SYSTEM_HEADER: 'X System' },
      /HYPERFLEET_API_SYSTEM_HEADER/,
    ],
    [{ HYPERFLEET_API_BASE_URL: 'ftp://x' }, /HYPERFLEET_API_BASE_URL: must be the API base URL/],
    [
      { HYPERFLEET_API_BASE_URL: 'https://x', HYPERFLEET_API_VERSION: 'one' },
      /HYPERFLEET_API_VERSION/,
    ],
    [
      { HYPERFLEET_API_BASE_URL: 'https://x', HYPERFLEET_API_RETRY_ATTEMPTS: '0' },
      /HYPERFLEET_API_RETRY_ATTEMPTS/,
    ],
  ])('rejects %j', (env, expected) => {
    expect(() => parseEnv(schema, env, 'test')).toThrow(expected);
  });
});
