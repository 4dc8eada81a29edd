import { randomBytes } from 'node:crypto';
import type { ReadyProcess } from '../../common/child-process';
import { hostedClusterCrds } from '../management-cluster/hosted-cluster-crd';
import { startClusterAccess, type ClusterAccess } from './cluster-access';
import { managementClusterSetup } from './cluster-setup';
import {
  createDefaultPullSecret,
  notifyDefaultPullSecretChanges,
  demoDefaultPullSecret,
  stackDefaultPullSecret,
} from './default-pull-secret';
import { localEventarc } from './delivery-triggers';
import type { DeliveryMode } from './eventarc-conversion';
import { MANAGEMENT_CLUSTER_MODES, MANAGEMENT_CLUSTERS, OPERATOR_IDENTITY } from './layout';
import type { Launcher } from './launcher';
import { operatorAccess } from './operator-credentials';
import { localStackIam } from './stack-iam';

/** The job's identity path and Google's services that know it. */
export interface GoogleSide {
  readonly access: ClusterAccess;
  readonly secretManager: ReadyProcess;
  readonly eventarc: ReadyProcess;
  /** Points the default pull secret's notifications at `topic` (once it exists); a no-op without a default. */
  notifyDefaultChanges(topic: string): Promise<void>;
}

/**
 * Starts the metadata server and the management clusters (with HyperShift's HostedCluster CRD),
 * then Google's side of the job's identity: Secret Manager with the allow policies Terraform
 * grants, and Eventarc with the triggers of this delivery mode, both knowing the job's tokens from
 * the metadata server's token info. Secret Manager publishes its event notifications to the
 * stack's Pub/Sub emulator at `pubsubEndpoint`. Then, unless the options say none, the operator
 * creates the platform default pull secret, before any component that could read it starts.
 */
export async function startGoogleSide(
  launcher: Launcher,
  delivery: DeliveryMode,
  pubsubEndpoint: string,
): Promise<GoogleSide> {
  const { options } = launcher;
  const defaultPullSecret = stackDefaultPullSecret(options);
  const modes = options.managementClusterModes ?? MANAGEMENT_CLUSTER_MODES;
  const access = await startClusterAccess({
    root: options.root,
    layout: launcher.layout.current,
    workDir: options.workDir,
    clusters: MANAGEMENT_CLUSTERS.map((name) => ({ name, mode: modes[name] ?? 'ip' })),
    hypershiftToken: randomBytes(24).toString('hex'),
    setup: managementClusterSetup(hostedClusterCrds()),
    emulator: (name, args, component) => launcher.emulator(name, args, launcher.baseEnv, component),
    // Every emulator that authorizes calls reads this one configuration (stack-iam.ts).
    iam: (serviceAccounts) =>
      localStackIam({
        serviceAccounts,
        clusterModes: MANAGEMENT_CLUSTERS.map((name) => modes[name] ?? 'ip'),
        // The job's read of the default, as Terraform grants it on the configured secret.
        ...(defaultPullSecret ? { defaultPullSecretVersion: defaultPullSecret.version } : {}),
      }),
  });
  const serviceAccounts = Object.fromEntries(
    Object.entries(access.metadata.accounts).map(([email, a]) => [a.uniqueId, email]),
  );
  const eventarcFile = launcher.writePrivateFile(
    'eventarc.json',
    JSON.stringify(
      localEventarc({ delivery, tokenInfoUrl: access.metadata.tokenInfoUrl, serviceAccounts }),
    ),
  );
  const [secretManager, eventarc] = await Promise.all([
    // TLS from the local public CA (the certificate grpc-js checks, so that the clients send their
    // tokens as to Google), calls without credentials refused; Secret.topics notifications
    // published to the stack's Pub/Sub, as Secret Manager publishes to the project's.
    launcher.emulator('secret-manager', [
      ...access.enforcedApiArgs('secret-manager'),
      '--pubsub',
      pubsubEndpoint,
    ]),
    launcher.emulator('eventarc', ['--config', eventarcFile]),
  ]);
  const operator = operatorAccess(
    {
      endpoints: {
        publicCaFile: access.publicCaFile,
        operatorMetadata: access.metadata.accounts[OPERATOR_IDENTITY]!.host,
      },
    },
    secretManager.info.endpoint as string,
  );
  if (defaultPullSecret) await createDefaultPullSecret(operator, demoDefaultPullSecret());
  return {
    access,
    secretManager,
    eventarc,
    notifyDefaultChanges: async (topic) => {
      if (defaultPullSecret) await notifyDefaultPullSecretChanges(operator, topic);
    },
  };
}
