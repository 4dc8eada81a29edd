// Each strictness rule of the HyperFleet API emulator, checked against the emulator itself over
// HTTP: the router's 404 NTF-000 and 405 before auth, JWT (401 AUT-001/002), tenancy (403
// AUZ-001, system callers limited to reads and status PUTs), the GCP provider schema for `spec`,
// the RFC 9457 problem shape, and no emulator-only response headers.
import path from 'node:path';
import {
  DEV_TENANCY,
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { readySpec } from '../../helpers/hyperfleet';
import { openApiValidator } from '../../helpers/openapi';
import { ROOT } from '../../helpers/run-process';

const TOKEN = 'test-token-1';
const SYSTEM = { 'X-HyperFleet-System': 'true' };
const ORG = { 'X-HyperFleet-Org': 'acme' };
const AUTH = { authorization: `Bearer ${TOKEN}` };

describe('HyperFleet API emulator: strict like the API with JWT, tenancy and the GCP schema on', () => {
  let emulator: HyperFleetApiEmulator;
  const validate = openApiValidator();

  beforeAll(async () => {
    emulator = await startHyperFleetApiEmulator({
      tokens: { [TOKEN]: 'tester@example.com' },
      tenancy: DEV_TENANCY,
      clusterSpecSchema: 'gcp',
    });
  });
  afterAll(() => emulator.stop());

  const call = async (
    method: string,
    target: string,
    headers: Record<string, string> = {},
    body?: unknown,
  ) => {
    const response = await fetch(`${emulator.baseUrl}${target}`, {
      method,
      headers: {
        ...headers,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> | undefined,
    };
  };
  const expectProblem = (
    answer: Awaited<ReturnType<typeof call>>,
    status: number,
    code: string,
  ) => {
    expect({ status: answer.status, code: answer.body?.code }).toEqual({ status, code });
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(validate('ProblemDetails', answer.body)).toEqual([]);
  };
  const create = (name: string, spec: unknown = readySpec()) =>
    call(
      'POST',
      '/api/hyperfleet/v1/clusters',
      { ...AUTH, ...ORG },
      { kind: 'Cluster', name, spec },
    );

  it.each([
    ['another API version', 'GET', '/api/hyperfleet/v2/clusters'],
    ['another base path', 'GET', '/hyperfleet/v1/clusters'],
    ['a misspelt resource', 'GET', '/api/hyperfleet/v1/cluster/abc'],
    ['a path below statuses', 'PUT', '/api/hyperfleet/v1/clusters/abc/statuses/pullsecret'],
  ])(
    'an unknown route (%s) is 404 HYPERFLEET-NTF-000, answered before any auth check',
    async (_n, method, target) => {
      const answer = await call(method, target);
      expectProblem(answer, 404, 'HYPERFLEET-NTF-000');
      expect(answer.body?.type).toBe('https://api.hyperfleet.io/errors/endpoint-not-found');
    },
  );

  it('a missing cluster is 404 HYPERFLEET-NTF-001 (with credentials)', async () => {
    for (const target of [
      '/api/hyperfleet/v1/clusters/nope',
      '/api/hyperfleet/v1/clusters/nope/statuses',
    ])
      expectProblem(await call('GET', target, { ...AUTH, ...SYSTEM }), 404, 'HYPERFLEET-NTF-001');
  });

  it.each([
    ['POST', '/api/hyperfleet/v1/clusters/abc/statuses', /POST on statuses was removed/],
    ['PUT', '/api/hyperfleet/v1/clusters', /allowed: GET, POST/],
    ['DELETE', '/api/hyperfleet/v1/clusters/abc/statuses', /allowed: GET, PUT/],
  ])('%s %s is 405 before any auth check', async (method, target, detail) => {
    const answer = await call(method, target);
    expect(answer.status).toBe(405);
    expect(String(answer.body?.detail)).toMatch(detail);
  });

  it('JWT: no token is 401 AUT-001, an unknown or non-bearer one 401 AUT-002', async () => {
    const target = '/api/hyperfleet/v1/clusters';
    expectProblem(await call('GET', target, SYSTEM), 401, 'HYPERFLEET-AUT-001');
    expectProblem(
      await call('GET', target, { ...SYSTEM, authorization: 'Bearer wrong' }),
      401,
      'HYPERFLEET-AUT-002',
    );
    expectProblem(
      await call('GET', target, { ...SYSTEM, authorization: `Basic ${TOKEN}` }),
      401,
      'HYPERFLEET-AUT-002',
    );
    expect((await call('GET', target, { ...AUTH, ...SYSTEM })).status).toBe(200);
  });

  it('tenancy: a caller with neither header, or a bad org value, is 403 AUZ-001', async () => {
    const target = '/api/hyperfleet/v1/clusters';
    expectProblem(await call('GET', target, AUTH), 403, 'HYPERFLEET-AUZ-001');
    expectProblem(
      await call('GET', target, { ...AUTH, 'X-HyperFleet-Org': 'a b' }),
      403,
      'HYPERFLEET-AUZ-001',
    );
    expectProblem(
      await call('GET', target, { ...AUTH, 'X-HyperFleet-System': 'false' }),
      403,
      'HYPERFLEET-AUZ-001',
    );
    expect((await call('GET', target, { ...AUTH, ...ORG })).status).toBe(200);
  });

  it('tenancy: a system caller may GET/list and PUT statuses only', async () => {
    const created = await create('tenancy-system');
    expect(created.status).toBe(201);
    const id = String(created.body?.id);
    const base = `/api/hyperfleet/v1/clusters/${id}`;
    const system = { ...AUTH, ...SYSTEM };
    expect((await call('GET', base, system)).status).toBe(200);
    expect((await call('GET', `${base}/statuses`, system)).status).toBe(200);
    const report = {
      adapter: 'pullsecret',
      observed_generation: 1,
      observed_time: new Date().toISOString(),
      conditions: ['Available', 'Applied', 'Health'].map((type) => ({
        type,
        status: 'True',
        reason: 'Ok',
        message: 'ok',
      })),
    };
    expect((await call('PUT', `${base}/statuses`, system, report)).status).toBe(201);
    for (const [method, target, body] of [
      [
        'POST',
        '/api/hyperfleet/v1/clusters',
        { kind: 'Cluster', name: 'by-system', spec: readySpec() },
      ],
      ['PATCH', base, { labels: { a: 'b' } }],
      ['DELETE', base, undefined],
      ['POST', `${base}/force-delete`, { reason: 'test' }],
    ] as const)
      expectProblem(await call(method, target, system, body), 403, 'HYPERFLEET-AUZ-001');
    expect(emulator.store.cluster(id)?.deleted_time).toBeUndefined();
  });

  it('spec: validated against the GCP provider schema on create and patch (400 with field errors)', async () => {
    const refused = await create('spec-aws', {
      platform: { type: 'aws', gcp: { projectID: 'p' } },
      pullSecret: { data: '{}' },
    });
    expectProblem(refused, 400, 'HYPERFLEET-VAL-000');
    expect(refused.body?.errors).toEqual([
      expect.objectContaining({ field: 'spec.platform.type', constraint: 'enum' }),
    ]);
    const missing = await create('spec-empty', {});
    expectProblem(missing, 400, 'HYPERFLEET-VAL-000');
    expect(missing.body?.errors).toEqual([
      expect.objectContaining({ field: 'spec.platform', constraint: 'required' }),
    ]);
    const created = await create('spec-ok');
    expect(created.status).toBe(201);
    const patched = await call(
      'PATCH',
      `/api/hyperfleet/v1/clusters/${String(created.body?.id)}`,
      { ...AUTH, ...ORG },
      { spec: { platform: { gcp: { projectID: 42 } } } },
    );
    expectProblem(patched, 400, 'HYPERFLEET-VAL-000');
    expect(patched.body?.errors).toEqual([
      expect.objectContaining({ field: 'spec.platform.gcp.projectID' }),
    ]);
  });

  it("the emulator's GCP spec schema agrees with the provider spec's ClusterSpec", () => {
    const gcp = openApiValidator(
      path.join(ROOT, 'test/fixtures/contracts/hyperfleet-api-gcp-v1.0.17.openapi.yaml'),
    );
    const samples: unknown[] = [
      readySpec(),
      {},
      { platform: { type: 'gcp' } },
      { platform: { type: 'gcp', gcp: {} } },
      { platform: { type: 'aws', gcp: {} } },
      { platform: { type: 'gcp', gcp: { projectID: 7 } } },
      { platform: { type: 'gcp', gcp: {} }, release: { version: 4 } },
      { platform: { type: 'gcp', gcp: {} }, networking: { clusterNetwork: [{ hostPrefix: 1.5 }] } },
      { platform: { type: 'gcp', gcp: {} }, networking: { serviceNetwork: ['10.0.0.0/16'] } },
      { platform: { type: 'gcp', gcp: {} }, dns: { baseDomain: 'example.com' }, extra: true },
    ];
    const emulatorAccepts = (spec: unknown) => {
      const store = emulator.store;
      try {
        store.createCluster(
          { kind: 'Cluster', name: `sample-${Math.random().toString(36).slice(2, 10)}`, spec },
          'test',
        );
        return true;
      } catch {
        return false;
      }
    };
    for (const spec of samples)
      expect({ spec, accepted: emulatorAccepts(spec) }).toEqual({
        spec,
        accepted: gcp('ClusterSpec', spec).length === 0,
      });
  });

  it('a discarded status write is a bare 204: no emulator-only header tells the client why', async () => {
    const created = await create('discards');
    const target = `/api/hyperfleet/v1/clusters/${String(created.body?.id)}/statuses`;
    const report = (generation: number) => ({
      adapter: 'pullsecret',
      observed_generation: generation,
      observed_time: new Date().toISOString(),
      conditions: ['Available', 'Applied', 'Health'].map((type) => ({
        type,
        status: 'False',
        reason: 'Waiting',
        message: 'waiting',
      })),
    });
    const answer = await call('PUT', target, { ...AUTH, ...SYSTEM }, report(5));
    expect(answer.status).toBe(204);
    const names: string[] = [];
    answer.headers.forEach((_value, name) => names.push(name));
    expect(names.filter((h) => /hyperfleet|discard/i.test(h))).toEqual([]);
  });
});
