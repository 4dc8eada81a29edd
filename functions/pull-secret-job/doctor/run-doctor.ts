import { fail, ok, skip, type CheckResult } from './check';
import { checkDelivery } from './delivery-step';
import type { DoctorContext } from './doctor-context';
import { checkGkeIam } from './gke-iam-step';
import {
  hyperFleetClient,
  hyperFleetSetting,
  judgeHyperFleet,
  listClusters,
  probeHyperFleet,
} from './hyperfleet-check';
import { probeManagementCluster } from './management-cluster-probe';
import { checkDefaultPullSecret, checkSecretManager } from './secret-manager-step';

export type { DoctorContext } from './doctor-context';

/**
 * Every check, in order: the job's identity, the HyperFleet API, Sentinel's topic and the delivery
 * wiring, Secret Manager in the customer projects asked for, each management cluster, GKE's IAM on
 * the clusters' projects, the default pull secret. Checks that do not depend on each other run at
 * once.
 */
export async function runDoctor(context: DoctorContext): Promise<CheckResult[]> {
  const { config, args } = context;
  const identity = context.serviceAccount ?? "the job's service account";
  let token: string | undefined;
  let identityRow: CheckResult;
  try {
    token = await context.token();
    identityRow = ok(
      'job-identity',
      `Google access token of ${identity} (cloud-platform, userinfo.email), as the job's runs get it`,
    );
  } catch (error) {
    identityRow = fail(
      'job-identity',
      `no Google access token: ${error instanceof Error ? error.message : String(error)}`,
      {
        problem:
          'The job has no Google credentials: it can reach neither Secret Manager nor its management clusters.',
        resource: "the job's service account (Cloud Run's metadata server)",
        action:
          'Run the doctor as an execution of the job (gcloud run jobs execute JOB --args=doctor); docs/operations.md, "pull-secret doctor".',
      },
    );
  }
  const needsToken = (name: string): CheckResult =>
    skip(name, 'not checked: the job has no Google access token (see job-identity)');

  const hyperfleet = config.hyperfleet
    ? hyperFleetClient(config.hyperfleet, context.logger)
    : undefined;
  const hyperfleetAnswer = await probeHyperFleet(hyperfleet);
  const hyperfleetRow = judgeHyperFleet(hyperfleetAnswer, hyperFleetSetting(config.hyperfleet));
  const wantsClusters = args.allProjects || args.projects.length > 0;
  const clusters =
    wantsClusters && hyperfleetAnswer.kind === 'listed'
      ? await listClusters(hyperfleet)
      : undefined;

  const [deliveryRows, secretManagerRows, clusterRows, gkeIamRows, defaultRow] = await Promise.all([
    checkDelivery(context, token),
    token
      ? checkSecretManager(context, token, clusters, hyperfleetAnswer.kind === 'listed')
      : [needsToken('secret-manager')],
    token ? checkManagementClusters(context, identity) : [needsToken('management-clusters')],
    token ? checkGkeIam(context, token, identity) : [needsToken('gke-iam')],
    token ? checkDefaultPullSecret(context, token, identity) : needsToken('default-pull-secret'),
  ]);
  return [
    identityRow,
    hyperfleetRow,
    ...deliveryRows,
    ...secretManagerRows,
    ...clusterRows,
    ...gkeIamRows,
    defaultRow,
  ];
}

/** Each management cluster the job knows, checked at once. */
async function checkManagementClusters(
  context: DoctorContext,
  identity: string,
): Promise<CheckResult[]> {
  const entries = Object.entries(context.config.managementClusters);
  if (entries.length === 0)
    return [
      skip(
        'management-clusters',
        'none configured (MANAGEMENT_CLUSTERS and MANAGEMENT_CLUSTERS_FILE are unset): Secret Manager only',
      ),
    ];
  const rows = await Promise.all(
    entries.map(([name, access]) =>
      probeManagementCluster({
        name,
        access,
        tokenSource: context.token,
        namespace: context.args.namespace ?? context.config.probeNamespace,
        timeoutMs: context.config.kubernetesTimeoutMs,
        identity,
      }),
    ),
  );
  return rows.flat();
}
