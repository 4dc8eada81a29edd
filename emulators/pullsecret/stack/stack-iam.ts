import { managementClusterQueue } from '../../../shared/launch-queue/management-cluster-queues';
import type { IamConfigInput } from '../../common/iam/iam-config';
import { derivedProjectNumber } from '../../common/derived-number';
import {
  JOB_NAME,
  LAUNCH_QUEUE,
  MANAGEMENT_CLUSTERS,
  LAUNCHER_IDENTITY,
  LOCAL_PROJECT,
  LOCAL_PROJECT_NUMBER,
  type ManagementClusterMode,
  OPERATOR_IDENTITY,
  RUNTIME_IDENTITIES,
  TARGET_PROJECTS,
} from './layout';
import { defaultPullSecretOf, runtimeIam, type RuntimeGrants } from './runtime-grants';

/**
 * The local stack's IAM, one configuration every emulator that authorizes calls reads (Secret
 * Manager and Resource Manager, Cloud Run, Cloud Tasks, the management clusters' GKE layer): what
 * Terraform grants (terraform/modules/runtime-grants.json) bound to the local resources, plus the
 * operator's administration (OPERATOR_IDENTITY: the stack's tools, the console, tests; not a
 * runtime grant). `serviceAccounts`: numeric unique id -> email of every identity the metadata
 * server serves.
 */
export function localStackIam(options: {
  readonly serviceAccounts: Readonly<Record<string, string>>;
  readonly clusterModes: readonly ManagementClusterMode[];
  readonly defaultPullSecretVersion?: string;
  /** The grants to bind; runtime-grants.json by default (a test narrows one permission). */
  readonly grants?: RuntimeGrants;
}): IamConfigInput {
  const numbers = Object.fromEntries(
    [LOCAL_PROJECT, ...TARGET_PROJECTS].map((p) => [
      p,
      p === LOCAL_PROJECT ? LOCAL_PROJECT_NUMBER : derivedProjectNumber(p),
    ]),
  );
  const defaultSecret = defaultPullSecretOf(options.defaultPullSecretVersion, numbers);
  // Every local management cluster, and the fleet host of those behind Connect Gateway, is in the
  // platform project; each kind gets its grant only when a cluster of that kind exists (roles_by_kind).
  const reachedDirectly = options.clusterModes.some((m) => m !== 'connect-gateway');
  const throughGateway = options.clusterModes.some((m) => m === 'connect-gateway');
  const runtime = runtimeIam({
    targets: {
      platformProject: LOCAL_PROJECT,
      platformProjectNumber: LOCAL_PROJECT_NUMBER,
      job: JOB_NAME,
      launchQueue: LAUNCH_QUEUE,
      managementClusterQueues: MANAGEMENT_CLUSTERS.map((name) =>
        managementClusterQueue(LAUNCH_QUEUE, name),
      ),
      launcherAccount: LAUNCHER_IDENTITY,
      tenantProjects: TARGET_PROJECTS,
      ...(defaultSecret ? { defaultPullSecret: defaultSecret } : {}),
      gkeClusterProjects: reachedDirectly ? [LOCAL_PROJECT] : [],
      fleetHostProjects: throughGateway ? [LOCAL_PROJECT] : [],
    },
    identities: RUNTIME_IDENTITIES,
    serviceAccounts: options.serviceAccounts,
    ...(options.grants ? { grants: options.grants } : {}),
  });
  const operator = Object.keys(runtime.projects).flatMap((project) =>
    ['roles/secretmanager.admin', 'roles/run.admin', 'roles/cloudtasks.admin'].map((role) => ({
      resource: `projects/${project}`,
      role,
      members: [`serviceAccount:${OPERATOR_IDENTITY}`],
    })),
  );
  return { ...runtime, bindings: [...(runtime.bindings ?? []), ...operator] };
}
