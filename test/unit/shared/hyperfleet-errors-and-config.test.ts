import { z } from 'zod';
import { parseEnv } from '../../../shared/config/parse-env';
import { hyperFleetApiEnvShape, toHyperFleetApiConfig } from '../../../shared/hyperfleet/config';
import {
  errorForStatus,
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
    [404, HyperFleetNotFoundError, 'permanent'],
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

describe('HyperFleet API configuration', () => {
  const schema = z.object(hyperFleetApiEnvShape);
  it('uses HyperFleet names and defaults', () => {
    const config = toHyperFleetApiConfig(
      parseEnv(schema, { HYPERFLEET_API_BASE_URL: 'http://api:8000/' }, 'test'),
    );
    expect(config).toEqual({
      baseUrl: 'http://api:8000',
      version: 'v1',
      timeoutMs: 10_000,
      retryAttempts: 3,
      auth: { kind: 'none' },
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
  it.each([
    [{}, /HYPERFLEET_API_BASE_URL/],
    [{ HYPERFLEET_API_BASE_URL: 'ftp://x' }, /HYPERFLEET_API_BASE_URL: must be the API base URL/],
    [
      { HYPERFLEET_API_BASE_URL: 'http://x', HYPERFLEET_API_VERSION: 'one' },
      /HYPERFLEET_API_VERSION/,
    ],
    [
      { HYPERFLEET_API_BASE_URL: 'http://x', HYPERFLEET_API_RETRY_ATTEMPTS: '0' },
      /HYPERFLEET_API_RETRY_ATTEMPTS/,
    ],
  ])('rejects %j', (env, expected) => {
    expect(() => parseEnv(schema, env, 'test')).toThrow(expected);
  });
});
