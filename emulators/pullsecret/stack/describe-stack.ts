import type { ReadyProcess } from '../../common/child-process';
import type { ClusterAccess } from './cluster-access';
import { stackDefaultPullSecret } from './default-pull-secret';
import type { DeliveryMode } from './eventarc-conversion';
import {
  JOB_IDENTITY,
  JOB_NAME,
  LAUNCH_QUEUE,
  LOCAL_PROJECT,
  OPERATOR_IDENTITY,
  TOPICS,
  topicPath,
} from './layout';
import { emulatorEnv, type Launcher } from './launcher';
import type { ManagementCluster } from './management-clusters';
import { describeSubscriptions, type PushSubscriptions } from './push-subscriptions';
import type { StackDescription } from './stack-description';
import type { StartedFunctions } from './start-functions';

/** Everything the stack started, as startStack holds it at the end. */
export interface StartedParts {
  readonly launcher: Launcher;
  readonly delivery: DeliveryMode;
  readonly traces: { readonly endpoint: string; readonly dir: string };
  readonly pubsubEndpoint: string;
  readonly access: ClusterAccess;
  readonly defaultCluster: ManagementCluster;
  readonly secretManager: ReadyProcess;
  readonly eventarc: ReadyProcess;
  readonly cloudRun: ReadyProcess;
  readonly cloudTasks: ReadyProcess;
  readonly hyperfleetUrl: string;
  readonly hyperfleetToken: string;
  readonly functions: StartedFunctions;
  readonly subscriptions: PushSubscriptions;
}

/** What a client (gcloud, kubectl, a script) needs to talk to the local system. */
function clientEnv(parts: StartedParts): Record<string, string> {
  return {
    GOOGLE_CLOUD_PROJECT: LOCAL_PROJECT,
    PUBSUB_EMULATOR_HOST: parts.pubsubEndpoint,
    // TLS (the public CA) with credentials: the emulator refuses calls without a token.
    SECRET_MANAGER_API_ENDPOINT: parts.secretManager.info.endpoint as string,
    GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: parts.access.publicCaFile,
    // Both check IAM over TLS, as Secret Manager does: a client brings a token.
    CLOUD_RUN_GRPC_ENDPOINT: parts.cloudRun.info.endpoint as string,
    CLOUD_TASKS_API_ENDPOINT: parts.cloudTasks.info.endpoint as string,
    HYPERFLEET_API_BASE_URL: parts.hyperfleetUrl,
    HYPERFLEET_API_AUTH_TOKEN_PATH: parts.hyperfleetToken,
    KUBECONFIG: parts.defaultCluster.kubeconfig,
    METADATA_SERVER_DETECTION: 'none',
    ...emulatorEnv(parts.secretManager, 'RESOURCE_MANAGER_EMULATOR_HOST'),
    ...emulatorEnv(parts.eventarc, 'EVENTARC_EMULATOR_HOST'),
  };
}

function endpoints(parts: StartedParts): StackDescription['endpoints'] {
  const { access } = parts;
  return {
    pubsub: parts.pubsubEndpoint,
    secretManager: parts.secretManager.info.endpoint as string,
    secretManagerAdmin: parts.secretManager.info.admin as string,
    kubeApiServer: parts.defaultCluster.endpoint,
    hyperfleetApi: parts.hyperfleetUrl,
    cloudRun: parts.cloudRun.info.endpoint as string,
    cloudRunAdmin: parts.cloudRun.info.admin as string,
    cloudRunApi: parts.cloudRun.info.admin as string,
    cloudTasks: parts.cloudTasks.info.endpoint as string,
    cloudTasksAdmin: parts.cloudTasks.info.admin as string,
    eventarc: parts.eventarc.info.endpoint as string,
    metadataServer: access.metadata.endpoint,
    operatorMetadata: access.metadata.accounts[OPERATOR_IDENTITY]!.host,
    identities: Object.fromEntries(
      Object.entries(access.metadata.accounts).map(([email, account]) => [email, account.host]),
    ),
    ...(access.gateway ? { connectGateway: access.gateway } : {}),
    publicCaFile: access.publicCaFile,
    adapter: parts.functions.adapterUrl,
    reporter: parts.functions.reporterUrl,
  };
}

/** The running stack's endpoints and environment, as stack.json records them. */
export function describeStack(parts: StartedParts): StackDescription {
  const { launcher, functions, delivery } = parts;
  const defaultPullSecret = stackDefaultPullSecret(launcher.options);
  return {
    project: LOCAL_PROJECT,
    namespaceLayout: parts.launcher.layout.current,
    ...(defaultPullSecret ? { defaultPullSecret: defaultPullSecret.secret } : {}),
    pid: process.pid,
    startedAt: new Date().toISOString(),
    workDir: launcher.options.workDir,
    logDir: launcher.logDir,
    kubeconfig: parts.defaultCluster.kubeconfig,
    managementClusters: Object.fromEntries(
      parts.access.clusters.map((c) => [
        c.name,
        { kubeconfig: c.kubeconfig, endpoint: c.endpoint, mode: c.mode, jobAccess: c.jobAccess },
      ]),
    ),
    jobIdentity: JOB_IDENTITY,
    job: JOB_NAME,
    launchQueue: LAUNCH_QUEUE,
    delivery,
    ...(functions.reporterConverter ? { reporterConverter: functions.reporterConverter } : {}),
    processes: launcher.components.pids,
    traces: parts.traces,
    endpoints: endpoints(parts),
    adapters: functions.adapters.description,
    topics: Object.fromEntries(Object.entries(TOPICS).map(([k, t]) => [k, topicPath(t)])),
    subscriptions: describeSubscriptions(parts.subscriptions, delivery),
    env: clientEnv(parts),
  };
}
