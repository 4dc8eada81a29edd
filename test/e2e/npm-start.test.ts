import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { loadLocalStackConfig } from '../../emulators/pullsecret/stack/config';
import { ROOT, runNode } from '../helpers/run-process';

const MAIN = path.join(ROOT, 'dist/emulators/pullsecret/stack/main.js');
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Runs the local stack's entry point (what `npm start` runs after building) and reads its JSON progress. */
const running: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  // A failed assertion must not leave a stack behind: SIGTERM stops every component.
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGTERM');
});

function runStack(args: string[]) {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'npm-start-'));
  const child = spawn(process.execPath, [MAIN, '--work-dir', workDir, '--json', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env },
  });
  running.push(child);
  const lines: Record<string, unknown>[] = [];
  const waiters: { test: (line: Record<string, unknown>) => boolean; resolve: () => void }[] = [];
  readline.createInterface({ input: child.stdout }).on('line', (text) => {
    const line = JSON.parse(text) as Record<string, unknown>;
    lines.push(line);
    for (const waiter of waiters.filter((w) => w.test(line))) waiter.resolve();
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const until = (test: (line: Record<string, unknown>) => boolean) =>
    new Promise<void>((resolve) =>
      lines.some(test) ? resolve() : waiters.push({ test, resolve }),
    );
  return { child, workDir, lines, exited, until, stderr: () => stderr };
}

describe('npm start (the local stack entry point)', () => {
  it('--once converges the demo cluster, stops everything and exits 0 without commands for the stopped stack', async () => {
    const run = runStack(['--once', '--timeout', '90s']);
    await run.until((l) => String(l.event).trim().startsWith('Everything is up'));
    const state = JSON.parse(fs.readFileSync(path.join(run.workDir, 'stack.json'), 'utf8')) as {
      processes: Record<string, number>;
      traces: { endpoint: string; dir: string };
      delivery: string;
      defaultPullSecret?: string;
      kubeconfig: string;
      managementClusters: Record<string, { kubeconfig: string; endpoint: string }>;
      endpoints: Record<string, string>;
      env: Record<string, string>;
      topics: Record<string, string>;
      subscriptions: Record<string, { pushEndpoint: string }>;
      adapters: {
        proxy: { endpoint: string; logFile: string };
        instances: { name: string; endpoint: string; port: number; logFile: string }[];
      };
    };
    expect(state.delivery).toBe(loadLocalStackConfig(process.env).delivery);
    // The platform default pull secret (an interface of issue 41): the secret, its project by id,
    // whose `latest` the adapter and the job use (a version added there is a rotation).
    expect(state.defaultPullSecret).toBe(
      'projects/demo-hyperfleet/secrets/platform-default-pull-secret',
    );
    expect(Object.keys(state.processes).sort()).toEqual([
      'adapter-1',
      'adapter-2',
      'cloud-run',
      'cloud-tasks',
      'connect-gateway',
      // Eventarc's read API, for pull-secret doctor: the delivery mode's triggers.
      'eventarc',
      'hyperfleet-api',
      'hypershift',
      'kube-apiserver-mgmt-1',
      'kube-apiserver-mgmt-2',
      'metadata-server',
      'pubsub',
      'reporter',
      'secret-manager',
      'sentinel',
    ]);
    // Two management clusters, each with its kubeconfig and endpoint; `kubeconfig` stays mgmt-1's.
    expect(Object.keys(state.managementClusters).sort()).toEqual(['mgmt-1', 'mgmt-2']);
    for (const cluster of Object.values(state.managementClusters)) {
      expect(fs.existsSync(cluster.kubeconfig)).toBe(true);
      expect(cluster.endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    }
    expect(state.kubeconfig).toBe(state.managementClusters['mgmt-1']?.kubeconfig);
    expect(Object.keys(state.env).sort()).toEqual(
      expect.arrayContaining([
        'PUBSUB_EMULATOR_HOST',
        // The Google APIs that check IAM: TLS from the stack's CA, a token on every call.
        'SECRET_MANAGER_API_ENDPOINT',
        'CLOUD_RUN_GRPC_ENDPOINT',
        'CLOUD_TASKS_API_ENDPOINT',
        'GRPC_DEFAULT_SSL_ROOTS_FILE_PATH',
        'KUBECONFIG',
        'HYPERFLEET_API_BASE_URL',
      ]),
    );
    expect(Object.keys(state.subscriptions).sort()).toEqual([
      'adapter',
      'finished',
      'fleet',
      'results',
    ]);
    // Two adapter instances by default, behind the proxy Pub/Sub pushes to (path kept for the CloudEvent source).
    expect(state.adapters.instances.map((i) => i.name)).toEqual(['adapter-1', 'adapter-2']);
    expect(new Set(state.adapters.instances.map((i) => i.port)).size).toBe(2);
    expect(state.subscriptions.adapter?.pushEndpoint).toBe(
      `${state.adapters.proxy.endpoint}/projects/demo-hyperfleet/topics/hyperfleet-system-clusters`,
    );
    expect(state.endpoints.adapter).toBe(state.adapters.proxy.endpoint);
    expect(await run.exited).toBe(0);

    const events = run.lines.map((l) => `${String(l.component ?? '')}: ${String(l.event)}`);
    const order = [
      'sentinel: reconcile event published',
      'adapter: preconditions met',
      'adapter: launch queued',
      'job: Secret Manager version added',
      'job: Kubernetes Secret created: mgmt-',
      'reporter: job result: status reported',
      'hypershift: HostedCluster created: mgmt-',
      'hypershift: status reported at generation 1: Available=True (PullSecretValid)',
      'hyperfleet: Reconciled=True',
    ];
    let last = -1;
    for (const step of order) {
      const index = events.findIndex((e, i) => i > last && e.startsWith(step));
      expect({ step, found: index > last }).toEqual({ step, found: true });
      last = index;
    }
    // The API's conditions are printed a poll late (cause first): PullsecretSuccessful is there too.
    expect(events.some((e) => e.startsWith('hyperfleet: PullsecretSuccessful=True'))).toBe(true);
    const converged = run.lines.find((l) => l.outcome === 'converged');
    // The Secret and the HostedCluster are in the cluster placement chose, named in the summary.
    expect(converged?.management_cluster).toMatch(/^mgmt-[12]$/);
    const summary = String(converged?.event);
    expect(summary).toMatch(/Converged in [\d.]+ s/);
    expect(summary).toContain(`Kubernetes Secret is in ${String(converged?.management_cluster)} `);
    // --once stops the stack right after: no commands that would point at stopped components.
    expect(summary).not.toMatch(/kubectl|curl|Look for yourself|Console:/);
    expect(fs.existsSync(path.join(run.workDir, 'stack.json'))).toBe(false);
    expect(Object.values(state.processes).filter(alive)).toEqual([]);
    // The stack received every component's spans; the summary's `npm run trace` still draws the
    // demo cluster's reconcile after the stack stopped (from the traces it left in the work dir).
    expect(state.traces.dir).toBe(path.join(run.workDir, 'traces'));
    expect(state.traces.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const clusterId = String(converged?.cluster_id);
    expect(summary).toContain(`npm run -s trace -- ${clusterId}`);
    const drawn = await runNode(
      path.join(ROOT, 'dist/emulators/pullsecret/stack/trace.js'),
      [clusterId, '--stack', path.join(run.workDir, 'stack.json')],
      {},
    );
    expect({ code: drawn.code, stderr: drawn.stderr }).toEqual({ code: 0, stderr: '' });
    expect(drawn.stdout).toMatch(/^Trace [0-9a-f]{32}: /);
    expect(drawn.stdout).toContain('hyperfleet-sentinel');
    expect(drawn.stdout).toContain('adapter.handle');
    // The reconcile that did the work (launch, job, status write), not a later skip trace.
    expect(drawn.stdout).toContain('job.run');
    expect(drawn.stdout).toContain('reporter.handle');
    const listed = await runNode(
      path.join(ROOT, 'dist/emulators/pullsecret/stack/trace.js'),
      [clusterId, '--list', '--stack', path.join(run.workDir, 'stack.json')],
      {},
    );
    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(listed.stdout).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}[0-9a-f]{32} {2}launch/m);
    expect(fs.readdirSync(path.join(run.workDir, 'logs')).sort()).toEqual([
      'adapter-1.log',
      'adapter-2.log',
      'adapter-proxy.log',
      'cloud-run.log',
      'cloud-tasks.log',
      'connect-gateway.log',
      'eventarc.log',
      'hyperfleet-api.log',
      'hypershift.log',
      'jobs',
      'kube-apiserver-mgmt-1.log',
      'kube-apiserver-mgmt-2.log',
      'metadata-server.log',
      'pubsub.log',
      // LOCAL_DELIVERY=eventarc (inherited by npm start) puts a converter before the reporter.
      ...(loadLocalStackConfig(process.env).delivery === 'eventarc'
        ? ['reporter-converter.log']
        : []),
      'reporter.log',
      'secret-manager.log',
      'sentinel.log',
    ]);
  }, 120_000);

  it('keeps running by default and stops every child on SIGTERM, however often signals arrive', async () => {
    const run = runStack([]);
    await run.until((l) => l.outcome === 'converged');
    await run.until((l) => String(l.event).trim().startsWith('Still running'));
    const state = JSON.parse(fs.readFileSync(path.join(run.workDir, 'stack.json'), 'utf8')) as {
      processes: Record<string, number>;
      console: { endpoint: string };
    };
    expect(Object.values(state.processes).every(alive)).toBe(true);
    // Still running: the summary says where to look, the console first.
    const summary = String(run.lines.find((l) => l.outcome === 'converged')?.event);
    expect(summary).toContain(`Console: ${state.console.endpoint}`);
    expect(summary).toMatch(/kubectl --kubeconfig \S+ get secret -n clusters\S* \S+-pull-secret/);
    expect(summary).toMatch(
      // The local API runs with JWT and tenancy on: the hint carries the token and the header.
      /curl -s -H "Authorization: Bearer \$\(cat \S+hyperfleet-api-token\)" -H 'X-HyperFleet-System: true' http:\/\/127\.0\.0\.1:\d+\/api\/hyperfleet\/v1\/clusters\/\S+\/statuses/,
    );
    const page = await fetch(state.console.endpoint);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Pull Secret Adapter · local console');
    const snapshot = (await (await fetch(`${state.console.endpoint}api/state`)).json()) as {
      clusters: { name: string }[];
    };
    expect(snapshot.clusters.map((c) => c.name)).toEqual(['demo-cluster']);
    // Ctrl-C under `npm start` reaches the orchestrator up to three times: from the terminal, from
    // npm and from scripts/start.cjs. A repeated signal must not cut the shutdown short.
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGINT'] as const) {
      run.child.kill(signal);
      await new Promise((r) => setTimeout(r, 200)); // apart, as they arrive (the same signal coalesces)
    }
    expect(await run.exited).toBe(0);
    expect(Object.values(state.processes).filter(alive)).toEqual([]);
    expect(fs.existsSync(path.join(run.workDir, 'stack.json'))).toBe(false);
  }, 120_000);

  it('refuses to start a second stack in the same work directory', async () => {
    const first = runStack([]);
    await first.until((l) => String(l.event).trim().startsWith('Everything is up'));
    const second = spawn(process.execPath, [MAIN, '--work-dir', first.workDir, '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    second.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => second.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('A local stack is already running');
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
  }, 120_000);
});

describe('npm start when its orchestrator is killed', () => {
  it('leaves nothing running: every child stops itself when its parent disappears', async () => {
    const run = runStack([]);
    await run.until((l) => String(l.event).trim().startsWith('Everything is up'));
    const state = JSON.parse(fs.readFileSync(path.join(run.workDir, 'stack.json'), 'utf8')) as {
      processes: Record<string, number>;
    };
    run.child.kill('SIGKILL');
    await run.exited;
    const deadline = Date.now() + 10_000;
    while (Object.values(state.processes).some(alive) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(Object.entries(state.processes).filter(([, pid]) => alive(pid))).toEqual([]);
  }, 60_000);
});
