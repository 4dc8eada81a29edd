import { gcpProjectOf } from '../../../shared/hyperfleet/cluster-project';
import type { Logger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import type { AccessTokenSource } from '../kubernetes-access';
import { fail, ok, skip, type CheckResult } from './check';
import { judgeDelivery, judgeSentinelTopic, type Route } from './delivery-check';
import { perRoute, readSubscription, readTopic, readTrigger } from './delivery-probe';
import type { DoctorArgs } from './doctor-args';
import { fullTopicName, type DoctorConfig } from './doctor-config';
import { judgeDefaultPullSecret, probeDefaultPullSecret } from './default-pull-secret-check';
import { restBase } from './google-rest';
import {
  hyperFleetClient,
  hyperFleetSetting,
  judgeHyperFleet,
  listClusters,
  probeHyperFleet,
} from './hyperfleet-check';
import { probeManagementCluster } from './management-cluster-probe';
import { judgeProjectRights, judgeSecretRights } from './secret-manager-check';
import {
  candidateClusters,
  probeProjectRights,
  probeSecretRights,
  type SecretManagerCallOptions,
} from './secret-manager-probe';

/** The default of Terraform's sentinel_topic, in the platform project. */
const SENTINEL_TOPIC = 'hyperfleet-system-clusters';

/** What the doctor runs with: the job's configuration, its identity and where it runs. */
export interface DoctorContext {
  readonly config: DoctorConfig;
  readonly args: DoctorArgs;
  readonly logger: Logger;
  readonly redactor: SecretRedactor;
  /** The job's Google access token (cloud-platform + userinfo.email), as its runs get it. */
  readonly token: AccessTokenSource;
  /** The job's service account email from the metadata server, if it says. */
  readonly serviceAccount?: string;
  /** The region the job runs in, from the metadata server, if it says. */
  readonly region?: string;
}

/**
 * Every check, in order: the job's identity, the HyperFleet API, Sentinel's topic and the delivery
 * wiring, Secret Manager in the customer projects asked for, each management cluster, the default
 * pull secret. Checks that do not depend on each other run at once.
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
          'Run the doctor as an execution of the job (gcloud run jobs execute JOB --args=doctor); README, "pull-secret doctor".',
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

  const [deliveryRows, secretManagerRows, clusterRows, defaultRow] = await Promise.all([
    checkDelivery(context, token),
    token
      ? checkSecretManager(context, token, clusters, hyperfleetAnswer.kind === 'listed')
      : [needsToken('secret-manager')],
    token ? checkManagementClusters(context, identity) : [needsToken('management-clusters')],
    token ? checkDefaultPullSecret(context, token, identity) : needsToken('default-pull-secret'),
  ]);
  return [
    identityRow,
    hyperfleetRow,
    ...deliveryRows,
    ...secretManagerRows,
    ...clusterRows,
    defaultRow,
  ];
}

/** Sentinel's topic, then the triggers (or push subscriptions) of the platform project. */
async function checkDelivery(
  context: DoctorContext,
  token: string | undefined,
): Promise<CheckResult[]> {
  const { config, args } = context;
  const project = config.platformProject;
  const topic = fullTopicName(
    args.sentinelTopic ?? config.sentinelTopic ?? SENTINEL_TOPIC,
    project,
  );
  const { PubSub } = await import('../../../shared/gcp/lazy/pubsub.js');
  const pubsub = new PubSub({
    ...(project ? { projectId: project } : {}),
    ...(config.emulators.pubsub
      ? { apiEndpoint: config.emulators.pubsub, emulatorMode: true }
      : {}),
  });
  try {
    const topicRow = judgeSentinelTopic(
      topic,
      topic ? await readTopic(pubsub, topic, config.gcpTimeoutMs) : undefined,
    );
    const region = args.region ?? context.region;
    const prefix = args.namePrefix ?? config.cloudRunJob?.replace(/-job$/, '') ?? 'pullsecret';
    if (!project || !region || !token)
      return [
        topicRow,
        skip(
          'delivery',
          `not checked: ${!project ? 'GOOGLE_CLOUD_PROJECT is not set' : !region ? 'the region is unknown (pass --region)' : 'no Google access token'}`,
        ),
      ];
    const triggerName = (route: Route) =>
      `projects/${project}/locations/${region}/triggers/${prefix}-${route}`;
    const subscriptionName = (route: Route) =>
      `projects/${project}/subscriptions/${prefix}-${route}`;
    const base = restBase('eventarc.googleapis.com', config.emulators.eventarc);
    const triggers = await perRoute((route) =>
      readTrigger({ base, name: triggerName(route), token, timeoutMs: config.gcpTimeoutMs }),
    );
    const subscriptions = Object.values(triggers).every((t) => t.kind === 'missing')
      ? await perRoute((route) =>
          readSubscription(pubsub, subscriptionName(route), config.gcpTimeoutMs),
        )
      : undefined;
    const deliveryRow = judgeDelivery({
      triggers,
      ...(subscriptions ? { subscriptions } : {}),
      triggerName,
      subscriptionName,
      expected: {
        adapter: topic,
        results: config.resultsTopic,
        finished: `projects/${project}/topics/${prefix}-execution-finished`,
      },
    });
    return [topicRow, deliveryRow];
  } finally {
    await pubsub.close();
  }
}

/** Secret Manager in each customer project asked for: the project, then one of its secrets. */
async function checkSecretManager(
  context: DoctorContext,
  token: string,
  clusters: Awaited<ReturnType<typeof listClusters>>,
  hyperfleetAnswered: boolean,
): Promise<CheckResult[]> {
  const { config, args } = context;
  const identity = context.serviceAccount ?? "the job's service account";
  if (!args.allProjects && args.projects.length === 0)
    return [
      skip(
        'secret-manager',
        'no customer project asked for: pass --project P (repeatable) or --all-projects',
      ),
    ];
  if (args.allProjects && !clusters)
    return [
      skip(
        'secret-manager',
        hyperfleetAnswered
          ? 'the HyperFleet API did not list the clusters'
          : 'not checked: --all-projects takes the projects from the HyperFleet API, which failed (see hyperfleet-api)',
      ),
    ];
  const projects = args.allProjects
    ? [
        ...new Set((clusters ?? []).map(gcpProjectOf).filter((p): p is string => p !== undefined)),
      ].sort()
    : args.projects;
  if (projects.length === 0)
    return [skip('secret-manager', 'the HyperFleet API lists no cluster with a GCP project yet')];
  const { SecretManagerServiceClient, googleClientOptions } =
    await import('../../../shared/gcp/lazy/secret-manager.js');
  const client = new SecretManagerServiceClient(
    googleClientOptions(config.emulators.secretManager),
  );
  const callOptions = secretManagerCallOptions(
    context,
    config.emulators.secretManager !== undefined,
  );
  const base = restBase('cloudresourcemanager.googleapis.com', config.emulators.resourceManager);
  try {
    const rows = await Promise.all(
      projects.map(async (project) => {
        const [projectAnswer, secretAnswer] = await Promise.all([
          probeProjectRights({ base, project, token, timeoutMs: config.gcpTimeoutMs }),
          probeSecretRights({
            client,
            project,
            candidates: candidateClusters(project, clusters, args.clusters),
            callOptions,
            why: clusters
              ? `the HyperFleet API lists no cluster in ${project}`
              : 'the HyperFleet API did not list the clusters',
          }),
        ]);
        return [
          judgeProjectRights(project, projectAnswer, identity),
          judgeSecretRights(project, secretAnswer, identity),
        ];
      }),
    );
    return rows.flat();
  } finally {
    await client.close();
  }
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
        'none configured (MANAGEMENT_CLUSTERS is unset): Secret Manager only',
      ),
    ];
  const rows = await Promise.all(
    entries.map(([name, access]) =>
      probeManagementCluster({
        name,
        access,
        tokenSource: context.token,
        namespace: context.args.namespace,
        timeoutMs: context.config.kubernetesTimeoutMs,
        identity,
      }),
    ),
  );
  return rows.flat();
}

async function checkDefaultPullSecret(
  context: DoctorContext,
  token: string,
  identity: string,
): Promise<CheckResult> {
  const { config } = context;
  if (!config.defaultPullSecretVersion)
    return judgeDefaultPullSecret(undefined, { kind: 'unconfigured' }, identity);
  const { SecretManagerServiceClient, googleClientOptions } =
    await import('../../../shared/gcp/lazy/secret-manager.js');
  const client = new SecretManagerServiceClient(
    googleClientOptions(config.emulators.secretManager),
  );
  try {
    const answer = await probeDefaultPullSecret({
      client,
      version: config.defaultPullSecretVersion,
      callOptions: secretManagerCallOptions(
        context,
        config.emulators.secretManager !== undefined,
        token,
      ),
      redactor: context.redactor,
    });
    return judgeDefaultPullSecret(config.defaultPullSecretVersion, answer, identity);
  } finally {
    await client.close();
  }
}

/**
 * Per-call options for Secret Manager. Toward Google the client sends the job's Application
 * Default Credentials itself; toward the emulator (an insecure channel, where client libraries
 * send none) the job's token goes as call metadata, so the emulator checks the job's IAM as
 * Google would.
 */
function secretManagerCallOptions(
  context: DoctorContext,
  emulated: boolean,
  token?: string,
): SecretManagerCallOptions {
  return async () => ({
    timeout: context.config.gcpTimeoutMs,
    retry: null,
    ...(emulated
      ? { otherArgs: { headers: { authorization: `Bearer ${token ?? (await context.token())}` } } }
      : {}),
  });
}
