import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAdapterConfig } from '../../../functions/adapter/config/config';
import { DEFAULT_PRECONDITIONS } from '../../../functions/adapter/decision/preconditions';

const base = {
  HYPERFLEET_API_BASE_URL: 'https://api:8000',
  PULL_SECRET_JOB: 'projects/p/locations/us-central1/jobs/pullsecret-job',
  LAUNCH_QUEUE: 'projects/p/locations/us-central1/queues/pullsecret-launches',
  LAUNCHER_SERVICE_ACCOUNT: 'pullsecret-launcher@p.iam.gserviceaccount.com',
};

describe('loadAdapterConfig', () => {
  it('has documented defaults', () => {
    const config = loadAdapterConfig(base);
    expect(config.decision).toEqual({
      resyncIntervalMs: 24 * 3600_000,
      // A quarter of the interval unless RESYNC_SPREAD says otherwise.
      resyncSpreadMs: 6 * 3600_000,
      driftRepairBackoffMs: 5 * 60_000,
      executionTimeoutMs: 25 * 60_000,
      executionCheckAfterMs: 3 * 60_000,
      launchCheckAfterMs: 30_000,
      launchStartGraceMs: 300_000,
      retryBackoffBaseMs: 30_000,
      retryBackoffMaxMs: 30 * 60_000,
      permanentFailureRetryMs: 3600_000,
      heartbeatMs: 300_000,
    });
    expect(config.preconditions).toBe(DEFAULT_PRECONDITIONS);
    expect(config.pullSecretSpecPath).toBe('spec.pullSecret.data');
    expect(config.launchQueue).toEqual({
      name: base.LAUNCH_QUEUE,
      perManagementCluster: false,
      launcherServiceAccount: base.LAUNCHER_SERVICE_ACCOUNT,
      cloudRunEndpoint: 'https://run.googleapis.com',
      tasks: {},
    });
    expect(config.cloudRun).toEqual({});
  });

  it('needs the launch queue and the launcher identity, in their resource forms', () => {
    const { LAUNCH_QUEUE: _queue, ...withoutQueue } = base;
    expect(() => loadAdapterConfig(withoutQueue)).toThrow(/LAUNCH_QUEUE/);
    expect(() => loadAdapterConfig({ ...base, LAUNCH_QUEUE: 'pullsecret-launches' })).toThrow(
      /LAUNCH_QUEUE: must be the queue resource name projects\/PROJECT\/locations\/REGION\/queues\/QUEUE/,
    );
    expect(() => loadAdapterConfig({ ...base, LAUNCHER_SERVICE_ACCOUNT: 'launcher' })).toThrow(
      /LAUNCHER_SERVICE_ACCOUNT: must be the launcher service account email/,
    );
    expect(
      loadAdapterConfig({ ...base, CLOUD_TASKS_EMULATOR_HOST: '127.0.0.1:8123' }).launchQueue.tasks,
    ).toEqual({ emulatorHost: '127.0.0.1:8123' });
  });

  it('calls Cloud Tasks and Cloud Run at another endpoint over TLS with its own credentials', () => {
    const config = loadAdapterConfig({
      ...base,
      CLOUD_TASKS_API_ENDPOINT: 'cloudtasks.example.internal',
      CLOUD_RUN_GRPC_ENDPOINT: '127.0.0.1:8443',
    });
    expect(config.launchQueue.tasks).toEqual({ apiEndpoint: 'cloudtasks.example.internal' });
    expect(config.cloudRun).toEqual({ apiEndpoint: '127.0.0.1:8443' });
    expect(() => loadAdapterConfig({ ...base, CLOUD_RUN_GRPC_ENDPOINT: 'https://x' })).toThrow(
      /CLOUD_RUN_GRPC_ENDPOINT: must be host or host:port/,
    );
  });

  it('reads preconditions from a YAML file or inline JSON', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pre-'));
    const file = path.join(dir, 'preconditions.yaml');
    fs.writeFileSync(
      file,
      '- name: gold\n  expression: cluster.labels["tier"] == "gold"\n  message: only gold clusters\n',
    );
    expect(loadAdapterConfig({ ...base, PRECONDITIONS_FILE: file }).preconditions).toEqual([
      {
        name: 'gold',
        expression: 'cluster.labels["tier"] == "gold"',
        message: 'only gold clusters',
      },
    ]);
    expect(
      loadAdapterConfig({ ...base, PRECONDITIONS: '[{"name":"always","expression":"true"}]' })
        .preconditions,
    ).toHaveLength(1);
    fs.rmSync(dir, { recursive: true });
  });

  it.each([
    [{ PULL_SECRET_JOB: 'pullsecret-job' }, /PULL_SECRET_JOB: must be the job resource name/],
    [{ RESYNC_INTERVAL: 'often' }, /RESYNC_INTERVAL/],
    [{ PRECONDITIONS_FILE: '/nonexistent/file.yaml' }, /PRECONDITIONS_FILE: cannot read/],
    [{ PRECONDITIONS: '[{"expression":"true"}]' }, /PRECONDITIONS: item 0.name/],
    [{ PRECONDITIONS: '{ not yaml: [' }, /PRECONDITIONS: not valid YAML/],
    [{ DEFAULT_PULL_SECRET_VERSION: 'latest' }, /DEFAULT_PULL_SECRET_VERSION: must be projects/],
    [{ PULL_SECRET_SPEC_PATH: 'spec..x' }, /PULL_SECRET_SPEC_PATH: must be a dot path/],
  ])('rejects %j', (override, expected) => {
    expect(() => loadAdapterConfig({ ...base, ...override })).toThrow(expected);
  });
});
