import https from 'node:https';
import { status } from '@grpc/grpc-js';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import {
  startHyperFleetApiEmulator,
  type HyperFleetApiEmulator,
} from '../../../emulators/hyperfleet-api/server';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import { cloudRunClients, TEST_JOB } from '../../helpers/cloud-run';

/**
 * The generic "perform, then fail" fault (`after: true`) on a gRPC emulator and on both HTTP
 * emulators, through their admin API: the effect happens, the caller sees only the error.
 */
describe('fault mode "perform, then fail" (after: true)', () => {
  let cloudRun: CloudRunEmulator;
  let hyperfleet: HyperFleetApiEmulator;
  let kube: KubeApiServerEmulator;
  let clients: ReturnType<typeof cloudRunClients>;

  beforeAll(async () => {
    [cloudRun, hyperfleet, kube] = await Promise.all([
      startCloudRunEmulator({ jobs: [{ name: TEST_JOB, command: ['/bin/true'], maxRetries: 0 }] }),
      startHyperFleetApiEmulator(),
      startKubeApiServerEmulator({ namespaces: ['clusters-a'] }),
    ]);
    clients = cloudRunClients(cloudRun.endpoint);
  });
  afterAll(async () => {
    await clients.jobs.close();
    await clients.executions.close();
    await Promise.all([cloudRun.stop(), hyperfleet.stop(), kube.stop()]);
  });

  const postFault = async (adminUrl: string, rule: object) => {
    const response = await fetch(`${adminUrl}/_emulator/faults`, {
      method: 'POST',
      body: JSON.stringify(rule),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('gRPC: RunJob answers DEADLINE_EXCEEDED, and the execution exists', async () => {
    const posted = await postFault(cloudRun.adminUrl, {
      match: 'RunJob',
      status: 'DEADLINE_EXCEEDED',
      after: true,
    });
    expect(posted).toEqual({ status: 200, body: { pending: 1 } });
    await expect(clients.jobs.runJob({ name: TEST_JOB })).rejects.toMatchObject({
      code: status.DEADLINE_EXCEEDED,
    });
    const [executions] = await clients.executions.listExecutions({ parent: TEST_JOB });
    expect(executions).toHaveLength(1);
    // Consumed: the next call is clean.
    await expect(clients.jobs.runJob({ name: TEST_JOB })).resolves.toBeDefined();
  });

  it('HTTP (HyperFleet): POST /clusters answers 503 as a problem, and the cluster exists', async () => {
    await postFault(hyperfleet.baseUrl, {
      match: 'POST /api/hyperfleet/v1/clusters',
      status: 503,
      after: true,
    });
    const response = await fetch(`${hyperfleet.baseUrl}/api/hyperfleet/v1/clusters`, {
      method: 'POST',
      body: JSON.stringify({ kind: 'Cluster', name: 'lost-answer', spec: {} }),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(await response.json()).toMatchObject({ code: 'HYPERFLEET-SVC-001' });
    const list = (await (
      await fetch(`${hyperfleet.baseUrl}/api/hyperfleet/v1/clusters`)
    ).json()) as {
      items: { name: string }[];
    };
    expect(list.items.map((c) => c.name)).toContain('lost-answer');
  });

  it('HTTP (Kubernetes): creating a Secret answers 500 as a Status, and the Secret exists', async () => {
    // The same rule the admin API takes (its HTTPS port needs the emulator's CA; tested above).
    kube.faults.add({
      match: 'POST /api/v1/namespaces/clusters-a/secrets',
      status: 500,
      after: true,
    });
    const token = kube.adminToken;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = https.request(
        `${kube.endpoint}/api/v1/namespaces/clusters-a/secrets`,
        {
          method: 'POST',
          ca: kube.caPem,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ metadata: { name: 'lost-answer' }, type: 'Opaque' }));
    });
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', code: 500 });
    expect(kube.store.getSecret('clusters-a', 'lost-answer')).toBeDefined();
  });

  it('rejects an "after" rule without a status with a clear 400', async () => {
    const posted = await postFault(cloudRun.adminUrl, { match: 'RunJob', after: true });
    expect(posted.status).toBe(400);
    expect(String(posted.body.error)).toContain('needs a "status"');
  });
});
