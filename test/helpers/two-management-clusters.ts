// The pull secret job against two Kubernetes emulators (mgmt-1, mgmt-2) and the Secret Manager
// emulator, run as the real CLI process: the fixture the placement tests share.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import type { V1Secret } from '@kubernetes/client-node';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../emulators/kube-apiserver/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../emulators/secret-manager/server';
import {
  placesFromAnnotations,
  type Place,
} from '../../functions/pull-secret-job/places/place-record';
import { googleClientOptions } from '../../shared/gcp/client-options';
import { runJob, samplePullSecret, type JobRun } from './job';
import { coreApi } from './kubernetes';

export const PROJECT = 'demo-project';
export const CLUSTER = 'cls-1';
export const NAME = 'cls-1-pull-secret';
export const SECRET = `projects/${PROJECT}/secrets/hyperfleet-${CLUSTER}-pull-secret`;
export const NAMESPACES = ['clusters-cls-1'] as const;

export const place = (cluster: string, namespace: string): Place => ({
  cluster,
  namespace,
  name: NAME,
});

export interface TwoClusters {
  readonly sm: SecretManagerEmulator;
  readonly mgmt1: KubeApiServerEmulator;
  readonly mgmt2: KubeApiServerEmulator;
  readonly secretManager: SecretManagerServiceClient;
  /** MANAGEMENT_CLUSTERS naming both emulators (kubeconfig contexts). */
  readonly clusters: string;
  /** MANAGEMENT_CLUSTERS with only the named ones. */
  readonly only: (...names: ('mgmt-1' | 'mgmt-2')[]) => string;
  /**
   * One execution as the adapter launches it, at `generation`, on `cluster`/`namespace`; `extra`
   * overrides any variable.
   */
  readonly run: (
    generation: number,
    cluster: string,
    namespace: string,
    extra?: Record<string, string>,
  ) => Promise<JobRun>;
  readonly secretIn: (
    kube: KubeApiServerEmulator,
    namespace: string,
  ) => Promise<V1Secret | undefined>;
  /** The places recorded on the Secret Manager secret. */
  readonly places: () => Promise<Place[]>;
  /** Where a Secret named NAME exists: `mgmt-N/namespace`, across both emulators. */
  readonly everywhere: () => Promise<string[]>;
  readonly reset: () => Promise<void>;
  readonly stop: () => Promise<void>;
}

export async function startTwoClusters(): Promise<TwoClusters> {
  const sm = await startSecretManagerEmulator();
  const mgmt1 = await startKubeApiServerEmulator({ namespaces: [...NAMESPACES] });
  const mgmt2 = await startKubeApiServerEmulator({ namespaces: [...NAMESPACES] });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'two-clusters-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeCombinedKubeconfig(kubeconfig, { 'mgmt-1': mgmt1, 'mgmt-2': mgmt2 });
  const only = (...names: string[]) =>
    JSON.stringify(Object.fromEntries(names.map((name) => [name, { kubeconfig, context: name }])));
  const clusters = only('mgmt-1', 'mgmt-2');
  const secretManager = new SecretManagerServiceClient(googleClientOptions(sm.endpoint, PROJECT));
  const kubes = { 'mgmt-1': mgmt1, 'mgmt-2': mgmt2 } as const;

  const secretIn = (
    kube: KubeApiServerEmulator,
    namespace: string,
  ): Promise<V1Secret | undefined> =>
    coreApi(kube)
      .readNamespacedSecret({ namespace, name: NAME })
      .catch(() => undefined);
  return {
    sm,
    mgmt1,
    mgmt2,
    secretManager,
    clusters,
    only,
    run: (generation, cluster, namespace, extra = {}) =>
      runJob({
        SECRET_MANAGER_EMULATOR_HOST: sm.endpoint,
        GCP_PROJECT_ID: PROJECT,
        CLUSTER_ID: CLUSTER,
        GENERATION: String(generation),
        LAUNCH_ATTEMPT: '1',
        CLOUD_RUN_EXECUTION: `pullsecret-job-${generation}${extra.OPERATION ?? ''}${extra.LAUNCH_ATTEMPT ?? ''}`,
        MANAGEMENT_CLUSTERS: clusters,
        DEFAULT_MANAGEMENT_CLUSTER: 'mgmt-1',
        MANAGEMENT_NAMESPACE: namespace,
        MANAGEMENT_CLUSTER: cluster,
        PULL_SECRET_DATA: samplePullSecret(),
        ...extra,
      }),
    secretIn,
    places: async () => {
      const [secret] = await secretManager.getSecret({ name: SECRET });
      return placesFromAnnotations(secret.annotations ?? {});
    },
    everywhere: async () => {
      const found: string[] = [];
      for (const [name, kube] of Object.entries(kubes))
        for (const namespace of NAMESPACES)
          if (await secretIn(kube, namespace)) found.push(`${name}/${namespace}`);
      return found;
    },
    reset: async () => {
      await Promise.all(
        [mgmt1, mgmt2].flatMap((kube) =>
          NAMESPACES.map((namespace) =>
            coreApi(kube)
              .deleteNamespacedSecret({ namespace, name: NAME })
              .catch(() => undefined),
          ),
        ),
      );
      await secretManager.deleteSecret({ name: SECRET }).catch(() => undefined);
      for (const emulator of [sm, mgmt1, mgmt2]) {
        emulator.requests.clear();
        emulator.faults.clear();
      }
    },
    stop: async () => {
      await secretManager.close();
      await sm.stop();
      await mgmt1.stop();
      await mgmt2.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One kubeconfig with a context per emulator: the entries pick theirs with `context`. The first is
 * the current context, so choosing another proves `context` is used.
 */
export function writeCombinedKubeconfig(
  file: string,
  clusters: Record<string, KubeApiServerEmulator>,
): void {
  const entries = Object.entries(clusters);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: entries.map(([name, kube]) => ({
      name,
      cluster: {
        server: kube.endpoint,
        'certificate-authority-data': Buffer.from(kube.caPem).toString('base64'),
      },
    })),
    users: entries.map(([name, kube]) => ({ name, user: { token: kube.adminToken } })),
    contexts: entries.map(([name]) => ({ name, context: { cluster: name, user: name } })),
    'current-context': entries[0]![0],
  };
  fs.writeFileSync(file, YAML.stringify(config), { mode: 0o600 });
}

/** Resolves once `ready()` holds, checking every 20 ms; fails after `ms`, naming `what`. */
export async function until(what: string, ready: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
