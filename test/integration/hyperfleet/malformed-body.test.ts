import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NoAuth } from '../../../shared/hyperfleet/auth';
import { HyperFleetClient } from '../../../shared/hyperfleet/client';
import { HyperFleetInvalidRequestError } from '../../../shared/hyperfleet/errors';
import type { HttpTransport } from '../../../shared/hyperfleet/http-transport';
import { canaryPullSecret } from '../../helpers/canary';
import { RecordingLogger } from '../../helpers/recording-logger';

// Issue 26, item 7: a 2xx answer whose body is not JSON made JSON.parse throw a SyntaxError that
// quotes the body around the bad token ("Unexpected token 'c', ..."data":canary-x-3f"... is not
// valid JSON"); the adapter logged it without any redactor. The body may hold a pull secret.

/** Every 6-character piece of `secret`: none may appear where the body could be echoed. */
const pieces = (secret: string) =>
  Array.from({ length: secret.length - 5 }, (_, i) => secret.slice(i, i + 6));

describe('HyperFleet client: a malformed 2xx body is an error that quotes none of it', () => {
  let server: http.Server;
  let baseUrl: string;
  let body = '';

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const fetchTransport: HttpTransport = (url, request) => fetch(url, request);

  it.each<[string, HttpTransport | undefined]>([
    ['the node:http transport', undefined],
    ['global fetch as the transport', fetchTransport],
  ])('%s', async (_name, transport) => {
    const canary = canaryPullSecret('q7');
    const password = canary.forms[4]!;
    const logger = new RecordingLogger();
    const client = new HyperFleetClient(
      {
        baseUrl,
        version: 'v1',
        timeoutMs: 2000,
        retryAttempts: 1,
        auth: { kind: 'none' },
        caller: { kind: 'none' },
      },
      { auth: new NoAuth(), logger, ...(transport ? { fetch: transport } : {}) },
    );
    for (const malformed of [
      // An unquoted value: the parser stops right at the secret and quotes around it.
      `{"id":"c1","name":"a","generation":1,"spec":{"pullSecret":{"data":${password}}}}`,
      // A short body is quoted whole.
      password.slice(0, 20),
      // Truncated mid-secret.
      `{"id":"c1","spec":{"pullSecret":{"data":${JSON.stringify(canary.text).slice(0, 60)}`,
    ]) {
      body = malformed;
      const error = await client.getCluster('c1').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HyperFleetInvalidRequestError);
      const message = (error as Error).message;
      expect(message).toMatch(/response body is not valid JSON/);
      expect(message).toContain('HYPERFLEET_API_BASE_URL');
      const said = `${message}\n${(error as Error).stack ?? ''}\n${logger.text()}`;
      // The password's own part (after the fixed "canary-" that file paths may also hold).
      expect(pieces(password.slice(7)).filter((piece) => said.includes(piece))).toEqual([]);
      expect(pieces(canary.forms[2]!).filter((piece) => said.includes(piece))).toEqual([]);
    }
  });
});
