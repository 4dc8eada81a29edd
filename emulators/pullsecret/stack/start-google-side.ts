import { randomBytes } from 'node:crypto';
import type { ReadyProcess } from '../../common/child-process';
import { hostedClusterCrds } from '../management-cluster/hosted-cluster-crd';
import { startClusterAccess, type ClusterAccess } from './cluster-access';
import { managementClusterSetup } from './cluster-setup';
import { localEventarc } from './delivery-triggers';
import type { DeliveryMode } from './eventarc-conversion';
import {
  JOB_IDENTITY,
  LOCAL_PROJECT,
  MANAGEMENT_CLUSTER_MODES,
  MANAGEMENT_CLUSTERS,
  READER_IDENTITY,
  REPORTER_IDENTITY,
  TARGET_PROJECTS,
} from './layout';
import type { Launcher } from './launcher';
import { withGkeGrants } from './gke-grants';
import { secretManagerIam } from './secret-manager-grants';

/** The job's identity path and Google's services that know it. */
export interface GoogleSide {
  readonly access: ClusterAccess;
  readonly secretManager: ReadyProcess;
  readonly eventarc: ReadyProcess;
}

/**
 * Starts the metadata server and the management clusters (with HyperShift's HostedCluster CRD),
 * then Google's side of the job's identity: Secret Manager with the allow policies Terraform
 * grants, and Eventarc with the triggers of this delivery mode, both knowing the job's tokens from
 * the metadata server's token info.
 */
export async function startGoogleSide(
  launcher: Launcher,
  delivery: DeliveryMode,
): Promise<GoogleSide> {
  const { options } = launcher;
  const modes = options.managementClusterModes ?? MANAGEMENT_CLUSTER_MODES;
  const access = await startClusterAccess({
    root: options.root,
    workDir: options.workDir,
    clusters: MANAGEMENT_CLUSTERS.map((name) => ({ name, mode: modes[name] ?? 'ip' })),
    hypershiftToken: randomBytes(24).toString('hex'),
    setup: managementClusterSetup(hostedClusterCrds()),
    emulator: (name, args, component) => launcher.emulator(name, args, launcher.baseEnv, component),
  });
  const serviceAccounts = { [access.metadata.uniqueId]: JOB_IDENTITY };
  // Resource Manager's testIamPermissions is served from this IAM: it holds the GKE grants too, so
  // the doctor sees what the job holds on the clusters' project (gke-grants.ts).
  const iamFile = launcher.writePrivateFile(
    'secret-manager-iam.json',
    JSON.stringify(
      withGkeGrants(
        secretManagerIam({
          targetProjects: TARGET_PROJECTS,
          platformProject: LOCAL_PROJECT,
          identities: { job: JOB_IDENTITY, reader: READER_IDENTITY, reporter: REPORTER_IDENTITY },
          serviceAccounts,
          ...(options.jobEnv?.DEFAULT_PULL_SECRET_VERSION
            ? { defaultPullSecretVersion: options.jobEnv.DEFAULT_PULL_SECRET_VERSION }
            : {}),
        }),
        access.gkeIam,
      ),
    ),
  );
  const eventarcFile = launcher.writePrivateFile(
    'eventarc.json',
    JSON.stringify(
      localEventarc({ delivery, tokenInfoUrl: access.metadata.tokenInfoUrl, serviceAccounts }),
    ),
  );
  const [secretManager, eventarc] = await Promise.all([
    launcher.emulator('secret-manager', [
      '--iam-file',
      iamFile,
      '--google-token-info',
      access.metadata.tokenInfoUrl,
    ]),
    launcher.emulator('eventarc', ['--config', eventarcFile]),
  ]);
  return { access, secretManager, eventarc };
}
