import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../emulators/kube-apiserver/server';
import {
  startMetadataServer,
  type MetadataServerEmulator,
} from '../../emulators/metadata-server/server';
import { applyManifest, renderClusterRbac } from '../../emulators/pullsecret/stack/cluster-rbac';
import { KubeReader } from '../../emulators/common/kube-admin';
import { ROOT } from './run-process';

/** A management cluster as GKE presents it to the job: Google tokens, Terraform's RBAC and fence. */
export interface GoogleCluster {
  readonly metadata: MetadataServerEmulator;
  readonly kube: KubeApiServerEmulator;
  /** The cluster administrator (kubeconfig token, system:masters). */
  readonly admin: KubeReader;
  stop(): Promise<void>;
}

/**
 * A metadata server issuing `serviceAccount`'s tokens and a Kubernetes emulator that authenticates
 * them as GKE does, with the RBAC and fence rendered from Terraform's templates applied by kubectl
 * (cluster-wide binding), as an operator would.
 */
export async function startGoogleCluster(options: {
  readonly serviceAccount: string;
  readonly namespaces: readonly string[];
}): Promise<GoogleCluster> {
  const metadata = await startMetadataServer({ serviceAccount: options.serviceAccount });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'google-cluster-'));
  const kube = await startKubeApiServerEmulator({
    namespaces: options.namespaces,
    googleTokenInfoUrl: metadata.tokenInfoUrl,
    stateDir: dir,
  });
  await applyManifest(
    kube.kubeconfigPath,
    renderClusterRbac(ROOT, {
      cluster: 'mgmt',
      jobIdentity: options.serviceAccount,
      namespaces: null,
      credentialsCommand: 'true',
    }),
  );
  return {
    metadata,
    kube,
    admin: new KubeReader(kube.kubeconfigPath),
    stop: async () => {
      await kube.stop();
      await metadata.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
