import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import { buildStatus } from '../../../shared/status/status-builder';
import { ALL_OUTCOMES } from '../../fixtures/status-outcomes';
import { hyperFleetClient, readySpec } from '../../helpers/hyperfleet';
import { openApiValidator, specPath } from '../../helpers/openapi';

/** Which spec schema describes each answer of the emulator. */
function responseSchema(method: string, path: string, status: number): string | undefined {
  if (status >= 400) return 'ProblemDetails';
  if (path.endsWith('/statuses'))
    return method === 'GET' ? 'AdapterStatusList' : status === 201 ? 'AdapterStatus' : undefined;
  if (/\/clusters$/.test(path)) return method === 'GET' ? 'ClusterList' : 'Cluster';
  return 'Cluster';
}

describe('HyperFleet API contract (official OpenAPI spec, validated with Ajv)', () => {
  let emulator: HyperFleetApiEmulator;
  const validate = openApiValidator();

  beforeAll(async () => {
    // Which file is being checked matters when the vendored copy drifts from upstream.
    process.stdout.write(`contract tests use ${specPath()}\n`);
    emulator = await startHyperFleetApiEmulator({ recordBodies: true });
  });
  afterAll(() => emulator.stop());

  it('every status body the status builder produces is a valid AdapterStatusCreateRequest', () => {
    for (const [name, outcome] of Object.entries(ALL_OUTCOMES)) {
      expect({
        name,
        errors: validate('AdapterStatusCreateRequest', buildStatus(outcome, 3, new Date())),
      }).toEqual({ name, errors: [] });
    }
  });

  it('the validator is strict enough to catch a wrong body', () => {
    expect(
      validate('AdapterStatusCreateRequest', {
        adapter: 'pullsecret',
        observed_generation: 'one',
        conditions: [],
      }),
    ).not.toEqual([]);
    expect(validate('Cluster', { kind: 'Cluster' })).not.toEqual([]);
  });

  it('every response and every body our client sent in a full lifecycle matches the spec', async () => {
    const client = hyperFleetClient(emulator);
    const created = await client.createCluster({
      name: 'contract',
      spec: readySpec(),
      labels: { env: 'test' },
    });
    await client.getCluster(created.id);
    await client.listClusters({ search: "labels.env='test'" });
    await client.patchCluster(created.id, { labels: { env: 'prod' } });
    for (const [, outcome] of Object.entries(ALL_OUTCOMES))
      await client.putStatus(created.id, buildStatus(outcome, 2, new Date()));
    await client.listStatuses(created.id);
    await client.deleteCluster(created.id);
    await client.findCluster('missing-cluster');
    await fetch(`${emulator.baseUrl}/api/hyperfleet/v1/clusters/${created.id}/statuses`, {
      method: 'POST',
      body: '{}',
    });

    expect(emulator.exchanges.length).toBeGreaterThan(12);
    const problems: string[] = [];
    for (const exchange of emulator.exchanges) {
      const schema = responseSchema(exchange.method, exchange.path, exchange.status);
      if (schema && exchange.responseBody !== undefined) {
        for (const error of validate(schema, exchange.responseBody))
          problems.push(
            `${exchange.method} ${exchange.path} ${exchange.status} (${schema}): ${error}`,
          );
      }
      if (exchange.method === 'PUT' && exchange.requestBody !== undefined) {
        for (const error of validate('AdapterStatusCreateRequest', exchange.requestBody))
          problems.push(`request ${exchange.path}: ${error}`);
      }
      if (exchange.method === 'POST' && exchange.path.endsWith('/clusters')) {
        for (const error of validate('ClusterCreateRequest', exchange.requestBody))
          problems.push(`request ${exchange.path}: ${error}`);
      }
      if (exchange.method === 'PATCH') {
        for (const error of validate('ClusterPatchRequest', exchange.requestBody))
          problems.push(`request ${exchange.path}: ${error}`);
      }
    }
    expect(problems).toEqual([]);
    expect(emulator.exchanges.map((e) => e.status)).toEqual(
      expect.arrayContaining([200, 201, 202, 404, 405]),
    );
  });
});
