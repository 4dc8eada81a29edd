import path from 'node:path';
import { startKubeApiServerEmulator } from '../emulators/kube-apiserver/server';
import { startSecretManagerEmulator } from '../emulators/secret-manager/server';
import { measureNodeProcess } from './measure-process';
import { percentile, round } from './stats';

const JOB = path.join(__dirname, '../functions/pull-secret-job/main.js');

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
}

/**
 * Runs the real job process `runs` times per kind against the Secret Manager and Kubernetes emulators, counting
 * the calls the emulator saw for one run of each kind.
 */
export async function benchJobRuns(runs: number): Promise<JobRunFigures[]> {
  const sm = await startSecretManagerEmulator();
  const namespaces = Array.from({ length: runs }, (_, i) => `clusters-bench-${i}`);
  const kube = await startKubeApiServerEmulator({ namespaces });
  const results: JobRunFigures[] = [];
  try {
    const envFor = (cluster: number, secret: number): NodeJS.ProcessEnv => ({
      PATH: process.env.PATH,
      METADATA_SERVER_DETECTION: 'none',
      SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
      GCP_PROJECT_ID: 'demo-bench',
      CLUSTER_ID: `bench-${cluster}`,
      PULL_SECRET_DATA: pullSecret(secret),
      KUBECONFIG: kube.kubeconfigPath,
      MANAGEMENT_NAMESPACE: `clusters-bench-${cluster}`,
      LOG_LEVEL: 'warn',
    });
    for (const kind of ['first', 'unchanged', 'changed'] as const) {
      const walls: number[] = [];
      let maxRss = 0;
      let calls = 0;
      let kubeCalls = 0;
      for (let i = 0; i < runs; i++) {
        const before = sm.requests.list().length;
        const kubeBefore = kube.requests.list().length;
        const m = await measureNodeProcess(
          JOB,
          ['run-job', 'pull-secret'],
          envFor(i, kind === 'changed' ? 2 : 1),
        );
        if (m.code !== 0)
          throw new Error(`job exited ${m.code} during the ${kind} bench:\n${m.stdout}`);
        walls.push(m.wallMs);
        maxRss = Math.max(maxRss, m.maxRssMb);
        calls = sm.requests.list().length - before;
        kubeCalls = kube.requests.list().length - kubeBefore;
      }
      results.push({
        kind,
        runs,
        wallMsP50: round(percentile(walls, 50)),
        wallMsP90: round(percentile(walls, 90)),
        maxRssMb: round(maxRss),
        secretManagerCalls: calls,
        kubernetesCalls: kubeCalls,
      });
    }
  } finally {
    await sm.stop();
    await kube.stop();
  }
  return results;
}
