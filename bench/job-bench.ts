import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHyperFleetApiEmulator } from '../emulators/hyperfleet-api/server';
import { startKubeApiServerEmulator } from '../emulators/kube-apiserver/server';
import { startSecretManagerEmulator } from '../emulators/secret-manager/server';
import { readJobImageNode } from '../emulators/pullsecret/job-image';
import { measureNodeProcess } from './measure-process';
import { percentile, round } from './stats';

const JOB = path.join(__dirname, '../../dist-bundle/pull-secret-job/main.mjs');

function pullSecret(n: number): string {
  return JSON.stringify({
    auths: { 'quay.io': { auth: Buffer.from(`bench-user:password-${n}`).toString('base64') } },
  });
}

/** One kind of run (first, unchanged, changed) measured over several clusters. */
export interface JobRunFigures {
  readonly kind: 'first' | 'unchanged' | 'changed';
  readonly runs: number;
  readonly wallMsP50: number;
  readonly wallMsP90: number;
  readonly maxRssMb: number;
  readonly secretManagerCalls: number;
  readonly kubernetesCalls: number;
  readonly hyperfleetCalls: number;
}

/** The cluster's spec as the HyperFleet API serves it: the pull secret the job resolves from it. */
function clusterSpec(n: number): Record<string, unknown> {
  return {
    platform: { type: 'gcp', gcp: { projectID: 'demo-bench', region: 'us-central1' } },
    pullSecret: { data: pullSecret(n) },
  };
}

/**
 * Runs the real job process `runs` times per kind against the Secret Manager, Kubernetes and
 * HyperFleet API emulators, as the adapter launches it in production (the pull secret read from
 * the cluster's spec, the cluster checked around the writes), counting the calls the emulators saw
 * for one run of each kind.
 */
export async function benchJobRuns(runs: number): Promise<JobRunFigures[]> {
  const sm = await startSecretManagerEmulator();
  const hyperfleet = await startHyperFleetApiEmulator();
  const namespaces = Array.from({ length: runs }, (_, i) => `clusters-bench-${i}`);
  const kube = await startKubeApiServerEmulator({ namespaces });
  for (let i = 0; i < runs; i++)
    hyperfleet.store.createCluster(
      { id: `bench-${i}`, kind: 'Cluster', name: `bench-${i}`, spec: clusterSpec(1) },
      'bench@hyperfleet.local',
    );
  const results: JobRunFigures[] = [];
  // As the image runs it (functions/pull-secret-job/Dockerfile, read by emulators/pullsecret/job-image.ts):
  // its ENTRYPOINT's node flags, its NODE_OPTIONS, and Node's compile cache warmed by the image's
  // own RUN commands before the runs (Node < 22.1 ignores the cache).
  const image = readJobImageNode();
  const compileCache = fs.mkdtempSync(path.join(os.tmpdir(), 'job-compile-cache-'));
  const imageEnv = {
    ...(image.env.NODE_OPTIONS !== undefined ? { NODE_OPTIONS: image.env.NODE_OPTIONS } : {}),
    NODE_COMPILE_CACHE: compileCache,
  };
  const measureJob = (args: readonly string[], env: NodeJS.ProcessEnv) =>
    measureNodeProcess(args[0]!, args.slice(1), env, path.dirname(JOB), image.nodeFlags);
  try {
    for (const warmup of image.warmups)
      await measureJob(warmup.slice(1 + image.nodeFlags.length), {
        PATH: process.env.PATH,
        ...imageEnv,
      });
    // As the adapter launches it: a first run at generation 1, a resync of the same generation
    // (the next attempt takes over the claim), and generation 2 with a new pull secret.
    const launchOf = {
      first: { generation: 1, attempt: 1 },
      unchanged: { generation: 1, attempt: 2 },
      changed: { generation: 2, attempt: 1 },
    } as const;
    const envFor = (cluster: number, kind: keyof typeof launchOf): NodeJS.ProcessEnv => ({
      PATH: process.env.PATH,
      METADATA_SERVER_DETECTION: 'none',
      SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
      GCP_PROJECT_ID: 'demo-bench',
      CLUSTER_ID: `bench-${cluster}`,
      HYPERFLEET_API_BASE_URL: hyperfleet.baseUrl,
      PULL_SECRET_SOURCE: 'cluster-spec',
      GENERATION: String(launchOf[kind].generation),
      LAUNCH_ATTEMPT: String(launchOf[kind].attempt),
      CLOUD_RUN_EXECUTION: `bench-job-${kind}-${cluster}`,
      KUBECONFIG: kube.kubeconfigPath,
      MANAGEMENT_NAMESPACE: `clusters-bench-${cluster}`,
      LOG_LEVEL: 'warn',
      ...imageEnv,
    });
    for (const kind of ['first', 'unchanged', 'changed'] as const) {
      const walls: number[] = [];
      let maxRss = 0;
      let calls = 0;
      let kubeCalls = 0;
      let hyperfleetCalls = 0;
      for (let i = 0; i < runs; i++) {
        // Generation 2: a new pull secret in the spec (PATCH bumps the generation).
        if (kind === 'changed')
          hyperfleet.store.patchCluster(`bench-${i}`, { spec: clusterSpec(2) }, 'bench');
        const before = sm.requests.list().length;
        const kubeBefore = kube.requests.list().length;
        const hyperfleetBefore = hyperfleet.requests.list().length;
        const m = await measureJob([JOB, 'run-job', 'pull-secret'], envFor(i, kind));
        if (m.code !== 0)
          throw new Error(`job exited ${m.code} during the ${kind} bench:\n${m.stdout}`);
        walls.push(m.wallMs);
        maxRss = Math.max(maxRss, m.maxRssMb);
        calls = sm.requests.list().length - before;
        kubeCalls = kube.requests.list().length - kubeBefore;
        hyperfleetCalls = hyperfleet.requests.list().length - hyperfleetBefore;
      }
      results.push({
        kind,
        runs,
        wallMsP50: round(percentile(walls, 50)),
        wallMsP90: round(percentile(walls, 90)),
        maxRssMb: round(maxRss),
        secretManagerCalls: calls,
        kubernetesCalls: kubeCalls,
        hyperfleetCalls,
      });
    }
  } finally {
    await sm.stop();
    await kube.stop();
    await hyperfleet.stop();
    fs.rmSync(compileCache, { recursive: true, force: true });
  }
  return results;
}
