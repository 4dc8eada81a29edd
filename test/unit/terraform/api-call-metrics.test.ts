// Issue 40, part 4: seed 000's observability as log-based metrics (api-calls.tf, cluster-metrics.tf):
// Secret Manager and Kubernetes calls by operation and status, their latency, secret versions
// created and job failures by cluster, and the seed's PullSecretGCPAPIErrors alert. Each metric's
// filter, as Terraform renders it, is evaluated (test/helpers/logging-filter.ts) on the entries the
// job's real code and logger write, turned into Cloud Logging entries as Cloud Run does, and on
// entries it must not count; its label and value extractors are read on what it matched.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { loadJobConfig } from '../../../functions/pull-secret-job/config/config';
import { jobDependencies } from '../../../functions/pull-secret-job/run/job-clients';
import { configFailure, writeResult } from '../../../functions/pull-secret-job/run/result-line';
import { ConfigError } from '../../../shared/errors';
import { GRPC_CALL_STATUSES } from '../../../shared/gcp/grpc-http-status';
import { GrpcStatus } from '../../../shared/gcp/grpc-status';
import type { JobResult } from '../../../shared/job-result';
import { SecretRedactor } from '../../../shared/logging/secret-redactor';
import { jobLogEntries } from '../../helpers/cloud-run-log-entry';
import { matchesLoggingFilter } from '../../helpers/logging-filter';
import { block, loadModules, moduleAt, resourceBody, type TfModule } from '../../helpers/terraform';
import { extracted, renderedMetric } from '../../helpers/terraform-metric-filter';

const PLACE = { project: 'platform-project', namePrefix: 'pullsecret' };
const JOB = { name: 'pullsecret-job', project: PLACE.project };
const SECRET = 'projects/customer-project/secrets/hyperfleet-cls-1-pull-secret';
type Entry = Record<string, unknown>;

const TOKEN = 'kube-token-canary-0f9e8d7c';
const PULL_SECRET = '{"auths":{"quay.io":{"auth":"cm9ib3Q6cGFzc3dvcmQtY2FuYXJ5LTQyNDI="}}}';

const grpcError = (code: number) => Object.assign(new Error(`${code} X: detail`), { code });

/** A Secret Manager client: GetSecret answers `get` codes in turn, AddSecretVersion `add` ones (0: OK). */
function secretManager(codes: { get: number[]; add: number[] }): SecretManagerServiceClient {
  const answer = (queue: number[], value: unknown) => async () => {
    const code = queue.shift() ?? 0;
    if (code !== 0) throw grpcError(code);
    return [value];
  };
  return {
    getSecret: answer(codes.get, {}),
    addSecretVersion: answer(codes.add, { name: `${SECRET}/versions/2` }),
  } as unknown as SecretManagerServiceClient;
}

const succeeded: JobResult = {
  outcome: 'succeeded',
  operation: 'apply',
  dry_run: false,
  cluster_id: 'cls-2',
  phases: ['secret-manager', 'kubernetes'],
  reason: 'PullSecretProvisioned',
  message: 'stored and written',
  durations_ms: { total: 900 },
  finished_at: '2026-01-01T00:00:00.000Z',
};

/**
 * A management cluster's API server that answers the first Secret create with 503, the next with
 * 201, and a kubeconfig for it whose token must never be logged.
 */
async function managementCluster(): Promise<{ kubeconfig: string; close: () => void }> {
  let creates = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const failed = creates++ === 0;
      response.writeHead(failed ? 503 : 201, { 'Content-Type': 'application/json' });
      response.end(
        failed
          ? JSON.stringify({ kind: 'Status', status: 'Failure', code: 503, message: 'etcd is busy' })
          : Buffer.concat(chunks),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-call-metrics-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'c',
          cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true },
        },
      ],
      users: [{ name: 'u', user: { token: TOKEN } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return {
    kubeconfig,
    close: () => {
      server.closeAllConnections();
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One apply's worth of entries, from the real stores as the job wires them (job-clients.ts: the
 * stores' logger carries the cluster, the Kubernetes one its management cluster): a GetSecret
 * retried after UNAVAILABLE, then NOT_FOUND; AddSecretVersion answered, then refused with
 * UNAVAILABLE; a Kubernetes create retried after a 503 (over HTTP, with the real client); an
 * ordinary job line with an operation and a duration; and two result lines.
 */
async function oneApply(kubeconfig: string): Promise<Entry[]> {
  const config = loadJobConfig({
    CLUSTER_ID: 'cls-1',
    GCP_PROJECT_ID: 'customer-project',
    PULL_SECRET_DATA: PULL_SECRET,
    MANAGEMENT_NAMESPACE: 'clusters-cls-1',
    MANAGEMENT_CLUSTERS: JSON.stringify({ 'mgmt-1': { kubeconfig } }),
    RETRY_BASE_DELAY: '1ms',
  });
  const redactor = new SecretRedactor();
  return jobLogEntries(JOB, async (logger) => {
    const deps = (client: SecretManagerServiceClient) =>
      jobDependencies(config, client, logger, redactor);
    const codes = { get: [GrpcStatus.UNAVAILABLE, GrpcStatus.NOT_FOUND], add: [0] };
    await deps(secretManager(codes)).secretStore.getSecret(SECRET);
    await deps(secretManager(codes)).secretStore.addVersion(SECRET, Buffer.from(PULL_SECRET), 1);
    const refused = secretManager({ get: [], add: [GrpcStatus.UNAVAILABLE] });
    await expect(
      deps(refused).secretStore.addVersion(SECRET, Buffer.from(PULL_SECRET), 1),
    ).rejects.toThrow();
    const secrets = await deps(refused).clusterSecrets('mgmt-1');
    await secrets.create({
      namespace: 'clusters-cls-1',
      name: 'cls-1-pull-secret',
      labels: {},
      annotations: {},
      dockerConfigJson: Buffer.from(PULL_SECRET),
    });
    logger.info('Published the version', { operation: 'publish-version', duration_ms: 4 });
    writeResult(succeeded, redactor, {});
    const failed = configFailure(
      new ConfigError('PULL_SECRET_SOURCE: bad'),
      { CLUSTER_ID: 'cls-1' },
      false,
    );
    writeResult(failed, redactor, {});
  });
}

const messageOf = (entry: Entry) => String((entry.jsonPayload as Entry).message);

/** The same entry written elsewhere: another job, or one of the functions. */
function elsewhere(entry: Entry): Entry[] {
  return [
    { ...entry, resource: { type: 'cloud_run_job', labels: { job_name: 'other-job' } } },
    {
      ...entry,
      resource: { type: 'cloud_run_revision', labels: { service_name: 'pullsecret-adapter' } },
    },
  ];
}

describe('the API-call and per-cluster log-based metrics, on the entries the job writes', () => {
  let entries: Entry[];
  let adapter: TfModule;
  const matched = async (metric: string) => {
    const { filter } = await renderedMetric(metric, PLACE);
    return entries.filter((entry) => matchesLoggingFilter(filter, entry));
  };
  const labels = async (metric: string) => {
    const { labelExtractors } = await renderedMetric(metric, PLACE);
    return (await matched(metric)).map((entry) =>
      Object.fromEntries(
        Object.entries(labelExtractors).map(([label, ex]) => [label, extracted(ex, entry)]),
      ),
    );
  };

  beforeAll(async () => {
    const cluster = await managementCluster();
    try {
      entries = await oneApply(cluster.kubeconfig);
    } finally {
      cluster.close();
    }
    adapter = moduleAt(await loadModules(), 'modules/pullsecret-adapter');
  });

  it('logs neither the pull secret nor the cluster token, in any form', () => {
    const text = JSON.stringify(entries);
    expect(entries.length).toBeGreaterThan(8);
    for (const secret of [TOKEN, PULL_SECRET, Buffer.from(PULL_SECRET).toString('base64'), 'password-canary-4242', 'cm9ib3Q6cGFzc3dvcmQtY2FuYXJ5LTQyNDI='])
      expect(text).not.toContain(secret);
  });

  it('has entries under jsonPayload.metadata, as the metrics read them', () => {
    const addVersion = entries.find((e) => messageOf(e) === 'Secret Manager AddSecretVersion: 200');
    expect(addVersion).toMatchObject({
      severity: 'INFO',
      jsonPayload: {
        metadata: {
          api: 'secretmanager.googleapis.com',
          operation: 'AddSecretVersion',
          status_code: '200',
          cluster_id: 'cls-1',
          duration_ms: expect.any(Number),
        },
      },
    });
  });

  it('gcp_api_calls counts each Secret Manager attempt, by operation, status and gRPC code', async () => {
    expect((await matched('gcp_api_calls')).map(messageOf)).toEqual([
      'Secret Manager GetSecret: 503',
      'Secret Manager GetSecret: 404',
      'Secret Manager AddSecretVersion: 200',
      'Secret Manager AddSecretVersion: 503',
    ]);
    expect(await labels('gcp_api_calls')).toEqual([
      { operation: 'GetSecret', status_code: '503', grpc_code: 'UNAVAILABLE' },
      { operation: 'GetSecret', status_code: '404', grpc_code: 'NOT_FOUND' },
      { operation: 'AddSecretVersion', status_code: '200', grpc_code: 'OK' },
      { operation: 'AddSecretVersion', status_code: '503', grpc_code: 'UNAVAILABLE' },
    ]);
  });

  it('k8s_api_calls counts each Kubernetes attempt, by operation, status and management cluster', async () => {
    expect(await labels('k8s_api_calls')).toEqual([
      { operation: 'create-secret', status_code: '503', management_cluster: 'mgmt-1' },
      { operation: 'create-secret', status_code: '2xx', management_cluster: 'mgmt-1' },
    ]);
  });

  it.each([
    ['gcp_api_duration', 'gcp_api_calls'],
    ['k8s_api_duration', 'k8s_api_calls'],
  ])('%s times what %s counts, from duration_ms', async (duration, calls) => {
    const { valueExtractor } = await renderedMetric(duration, PLACE);
    expect(valueExtractor).toBe('EXTRACT(jsonPayload.metadata.duration_ms)');
    const timed = await matched(duration);
    expect(timed).toEqual(await matched(calls));
    for (const entry of timed) expect(Number(extracted(valueExtractor!, entry))).toBeGreaterThanOrEqual(0);
    expect(block(resourceBody(adapter, 'google_logging_metric', duration), 'metric_descriptor')).toMatchObject({ value_type: 'DISTRIBUTION', unit: 'ms' });
  });

  it('secret_versions_created counts only answered AddSecretVersion calls, by cluster', async () => {
    expect((await matched('secret_versions_created')).map(messageOf)).toEqual([
      'Secret Manager AddSecretVersion: 200',
    ]);
    expect(await labels('secret_versions_created')).toEqual([{ cluster_id: 'cls-1' }]);
  });

  it('job_failures counts failed result lines only, by cluster and reason', async () => {
    expect(await labels('job_failures')).toEqual([{ cluster_id: 'cls-1', reason: 'InvalidConfiguration' }]);
  });

  it('counts nothing but these: no retry warning, no other job line, nothing of another job or of the functions', async () => {
    const counted = new Set<Entry>();
    for (const metric of ['gcp_api_calls', 'k8s_api_calls', 'secret_versions_created', 'job_failures'])
      for (const entry of await matched(metric)) counted.add(entry);
    const uncounted = entries.filter((entry) => !counted.has(entry)).map(messageOf);
    expect(uncounted).toEqual(
      expect.arrayContaining(['Secret Manager GetSecret failed, retrying', 'Kubernetes create secret failed, retrying', 'Published the version', 'Pull secret job succeeded: PullSecretProvisioned']),
    );
    for (const metric of ['gcp_api_calls', 'k8s_api_calls', 'gcp_api_duration', 'k8s_api_duration', 'secret_versions_created', 'job_failures']) {
      const { filter } = await renderedMetric(metric, PLACE);
      const foreign = (await matched(metric)).flatMap(elsewhere);
      expect(foreign.length).toBeGreaterThan(0);
      expect(foreign.filter((entry) => matchesLoggingFilter(filter, entry))).toEqual([]);
    }
  });

  it('declares exactly the labels its extractors fill, on every log-based metric of the module', () => {
    const metrics = adapter.resources.filter((r) => r.type === 'google_logging_metric');
    expect(metrics.length).toBeGreaterThan(10);
    for (const metric of metrics) {
      const descriptor = block(metric.body, 'metric_descriptor');
      const declared = ((descriptor.labels as Record<string, unknown>[] | undefined) ?? []).map((l) => l.key);
      expect([metric.name, Object.keys((metric.body.label_extractors as object | undefined) ?? {}).sort()]).toEqual([metric.name, [...declared].sort()]);
    }
  });
});

describe("the seed's PullSecretGCPAPIErrors alert (gcp_api_errors)", () => {
  let adapter: TfModule;
  beforeAll(async () => {
    adapter = moduleAt(await loadModules(), 'modules/pullsecret-adapter');
  });
  const condition = () =>
    block(block(resourceBody(adapter, 'google_monitoring_alert_policy', 'gcp_api_errors'), 'conditions'), 'condition_prometheus_query_language');

  it('is the seed\'s expression on gcp_api_calls: rate of 5xx over 5 minutes above 0, for 5 minutes', () => {
    const { query, duration } = condition() as { query: string; duration: string };
    expect(query).toBe(
      'sum(rate(logging_googleapis_com:user_${google_logging_metric.gcp_api_calls["enabled"].name}{status_code=~"5.."}[5m])) > 0',
    );
    expect(duration).toBe('300s');
  });

  it('counts the gRPC server errors (UNKNOWN, INTERNAL, DATA_LOSS, UNIMPLEMENTED, UNAVAILABLE, DEADLINE_EXCEEDED), not client errors or no answer', () => {
    const { query } = condition() as { query: string };
    // A PromQL regex matcher is anchored at both ends.
    const regex = new RegExp(`^(?:${/status_code=~"([^"]+)"/.exec(query)![1]!})$`);
    const statusOf = (name: keyof typeof GrpcStatus) =>
      name === 'OK' ? GRPC_CALL_STATUSES.answered.status_code : GRPC_CALL_STATUSES.failed(grpcError(GrpcStatus[name])).status_code;
    const server = (Object.keys(GrpcStatus) as (keyof typeof GrpcStatus)[]).filter((name) => regex.test(statusOf(name)));
    expect(server.sort()).toEqual(['DATA_LOSS', 'DEADLINE_EXCEEDED', 'INTERNAL', 'UNAVAILABLE', 'UNIMPLEMENTED', 'UNKNOWN']);
    expect(regex.test(GRPC_CALL_STATUSES.failed(new Error('reset')).status_code)).toBe(false);
  });

  it('waits for its metric like every alert on a log-based metric (the 600 s propagation wait)', () => {
    const alert = resourceBody(adapter, 'google_monitoring_alert_policy', 'gcp_api_errors');
    expect(alert.depends_on).toEqual(expect.arrayContaining(['${time_sleep.metrics_propagation}']));
    const triggers = resourceBody(adapter, 'time_sleep', 'metrics_propagation').triggers as Record<string, string>;
    expect(triggers.gcp_api_calls).toBe('${google_logging_metric.gcp_api_calls[each.key].id}');
  });
});
