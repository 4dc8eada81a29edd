// Issue 26, item 4, as processes: an execution on Cloud Run (CLOUD_RUN_JOB set, no emulator mark)
// launched with an emulator host or KUBECONFIG is refused before any call: the job exits with a
// configuration failure naming the variables, and the emulators it was pointed at see nothing. The
// local stack's path, the same job definition run by the Cloud Run emulator (which marks its tasks'
// argv[0]), still works.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startCloudRunEmulator, type CloudRunEmulator } from '../../../emulators/cloud-run/server';
import { jobNodeArgs } from '../../../emulators/pullsecret/job-image';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { EXIT_CODES, RESULT_LINE_KEY } from '../../../shared/job-result';
import { cloudRunClients, TEST_JOB } from '../../helpers/cloud-run';
import { runJob, samplePullSecret } from '../../helpers/job';
import { JOB_CLI, runNode } from '../../helpers/run-process';

const NS = 'clusters-cls-guard';
const CLUSTER = {
  CLUSTER_ID: 'cls-guard',
  GCP_PROJECT_ID: 'demo-project',
  MANAGEMENT_NAMESPACE: NS,
};

/** A TCP server that only counts connections: a stand-in for a metadata server the job must not reach. */
async function connectionCounter(): Promise<{
  host: string;
  count: () => number;
  stop: () => Promise<void>;
}> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    count: () => connections,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the job on Cloud Run refuses variables that would redirect it (CLI process and Cloud Run emulator)', () => {
  let sm: SecretManagerEmulator;
  let kube: KubeApiServerEmulator;
  let metadata: Awaited<ReturnType<typeof connectionCounter>>;
  let logDir: string;

  beforeAll(async () => {
    sm = await startSecretManagerEmulator();
    kube = await startKubeApiServerEmulator({ namespaces: [NS] });
    metadata = await connectionCounter();
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'redirect-guard-'));
  });
  afterAll(async () => {
    await Promise.all([sm.stop(), kube.stop(), metadata.stop()]);
    fs.rmSync(logDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    sm.requests.clear();
    kube.requests.clear();
  });

  /** The environment the local stack gives the job: emulator hosts and a kubeconfig. */
  const localEnv = () => ({
    SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
    KUBECONFIG: kube.kubeconfigPath,
    PULL_SECRET_DATA: samplePullSecret(),
  });

  it('on Cloud Run (CLOUD_RUN_JOB, no emulator mark): exits with a configuration failure naming each variable; no emulator sees a request', async () => {
    const run = await runJob({
      ...localEnv(),
      ...CLUSTER,
      GENERATION: '1',
      CLOUD_RUN_JOB: 'pullsecret-job',
      CLOUD_RUN_EXECUTION: 'pullsecret-job-guard1',
      // Pointed at a metadata server, with detection on: a token request would reach it.
      METADATA_SERVER_DETECTION: undefined,
      GCE_METADATA_HOST: metadata.host,
    });
    expect(run.code).toBe(EXIT_CODES.configuration);
    expect(run.result).toMatchObject({
      outcome: 'failed',
      reason: 'InvalidConfiguration',
      cluster_id: 'cls-guard',
    });
    for (const name of ['SECRET_MANAGER_EMULATOR_HOST', 'KUBECONFIG', 'GCE_METADATA_HOST']) {
      expect(run.result.message).toContain(name);
      expect(run.stderr).toContain(name);
    }
    expect(run.result.message).toMatch(/^Refused on Cloud Run \(CLOUD_RUN_JOB is set\)/);
    expect(run.result.message).not.toContain(sm.endpoint);
    expect(sm.requests.list()).toEqual([]);
    expect(kube.requests.list()).toEqual([]);
    expect(metadata.count()).toBe(0);
  });

  it('on Cloud Run: a MANAGEMENT_CLUSTERS entry in kubeconfig form is refused the same way, naming the entry', async () => {
    const run = await runJob({
      ...CLUSTER,
      PULL_SECRET_DATA: samplePullSecret(),
      GENERATION: '1',
      CLOUD_RUN_JOB: 'pullsecret-job',
      CLOUD_RUN_EXECUTION: 'pullsecret-job-guard2',
      MANAGEMENT_CLUSTERS: JSON.stringify({ local: { kubeconfig: kube.kubeconfigPath } }),
    });
    expect(run.code).toBe(EXIT_CODES.configuration);
    expect(run.result.message).toContain('MANAGEMENT_CLUSTERS entry "local"');
    expect(kube.requests.list()).toEqual([]);
  });

  it('on Cloud Run: a MANAGEMENT_CLUSTERS_FILE entry in kubeconfig form is refused the same way, naming the file variable and the entry', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guard-file-'));
    const file = path.join(dir, 'management-clusters.json');
    fs.writeFileSync(file, JSON.stringify({ local: { kubeconfig: kube.kubeconfigPath } }));
    try {
      const run = await runJob({
        ...CLUSTER,
        PULL_SECRET_DATA: samplePullSecret(),
        GENERATION: '1',
        CLOUD_RUN_JOB: 'pullsecret-job',
        CLOUD_RUN_EXECUTION: 'pullsecret-job-guard3',
        MANAGEMENT_CLUSTERS_FILE: file,
      });
      expect(run.code).toBe(EXIT_CODES.configuration);
      expect(run.result.message).toContain('MANAGEMENT_CLUSTERS_FILE entry "local"');
      expect(kube.requests.list()).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("`pull-secret doctor` on Cloud Run (the operator's args override) refuses the same way, before any call", async () => {
    const run = await runNode(JOB_CLI, ['doctor', '--all-projects'], {
      ...localEnv(),
      EVENTARC_EMULATOR_HOST: metadata.host,
      CLOUD_RUN_JOB: 'pullsecret-job',
      METADATA_SERVER_DETECTION: undefined,
      GCE_METADATA_HOST: metadata.host,
    });
    expect(run.code).toBe(2);
    for (const name of [
      'SECRET_MANAGER_EMULATOR_HOST',
      'KUBECONFIG',
      'GCE_METADATA_HOST',
      'EVENTARC_EMULATOR_HOST',
    ])
      expect(run.stderr).toContain(name);
    expect(run.stdout).toBe('');
    expect(sm.requests.list()).toEqual([]);
    expect(kube.requests.list()).toEqual([]);
    expect(metadata.count()).toBe(0);
  });

  describe('the local stack: the Cloud Run emulator runs the same job definition', () => {
    let cloudRun: CloudRunEmulator;
    let clients: ReturnType<typeof cloudRunClients>;

    beforeAll(async () => {
      cloudRun = await startCloudRunEmulator({
        jobs: [
          {
            name: TEST_JOB,
            // As the image runs it; the emulator adds CLOUD_RUN_JOB and marks the task's argv[0].
            command: [process.execPath, ...jobNodeArgs(), JOB_CLI, 'run-job', 'pull-secret'],
            env: { ...localEnv(), LOG_FORMAT: 'json', RETRY_BASE_DELAY: '50ms' },
            maxRetries: 0,
            timeoutSeconds: 60,
            logDir,
          },
        ],
        baseEnv: { PATH: process.env.PATH ?? '', METADATA_SERVER_DETECTION: 'none' },
      });
      clients = cloudRunClients(cloudRun.endpoint);
    });
    afterAll(async () => {
      await clients.jobs.close();
      await clients.executions.close();
      await clients.tasks.close();
      await cloudRun.stop();
    });

    it('is allowed: the execution succeeds and writes through both emulators', async () => {
      const env = Object.entries({ ...CLUSTER, GENERATION: '2' }).map(([name, value]) => ({
        name,
        value,
      }));
      const [operation] = await clients.jobs.runJob({
        name: TEST_JOB,
        overrides: { containerOverrides: [{ env }] },
      });
      const name = (operation.metadata as { name: string }).name;
      const execution = await cloudRun.waitForExecution(name, 60_000);
      const log = fs.readFileSync(path.join(logDir, `${execution.shortName}.log`), 'utf8');
      const last = JSON.parse(log.trim().split('\n').pop() ?? '{}') as Record<
        string,
        { outcome?: string; reason?: string }
      >;
      expect(last[RESULT_LINE_KEY]).toMatchObject({ outcome: 'succeeded' });
      expect(execution.succeededCount).toBe(1);
      expect(sm.requests.list().length).toBeGreaterThan(0);
      expect(
        kube.requests.list().some((r) => r.target.startsWith(`/api/v1/namespaces/${NS}/secrets`)),
      ).toBe(true);
    });
  });
});
