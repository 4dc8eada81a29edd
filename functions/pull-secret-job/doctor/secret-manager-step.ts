import { gcpProjectOf } from '../../../shared/hyperfleet/cluster-project';
import type { Cluster } from '../../../shared/hyperfleet/schemas';
import { skip, type CheckResult } from './check';
import { judgeDefaultPullSecret, probeDefaultPullSecret } from './default-pull-secret-check';
import type { DoctorContext } from './doctor-context';
import { restBase } from './google-rest';
import { judgeProjectRights, judgeSecretRights } from './secret-manager-check';
import {
  candidateClusters,
  probeProjectRights,
  probeSecretRights,
  type SecretManagerCallOptions,
} from './secret-manager-probe';

/** Secret Manager in each customer project asked for: the project, then one of its secrets. */
export async function checkSecretManager(
  context: DoctorContext,
  token: string,
  clusters: readonly Cluster[] | undefined,
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
  const client = new SecretManagerServiceClient(googleClientOptions(secretManagerEndpoint(config)));
  const callOptions = secretManagerCallOptions(context, insecureEmulator(config));
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

/** The platform default pull secret, read as the job reads it. */
export async function checkDefaultPullSecret(
  context: DoctorContext,
  token: string,
  identity: string,
): Promise<CheckResult> {
  const { config } = context;
  if (!config.defaultPullSecretVersion)
    return judgeDefaultPullSecret(undefined, { kind: 'unconfigured' }, identity);
  const { SecretManagerServiceClient, googleClientOptions } =
    await import('../../../shared/gcp/lazy/secret-manager.js');
  const client = new SecretManagerServiceClient(googleClientOptions(secretManagerEndpoint(config)));
  try {
    const answer = await probeDefaultPullSecret({
      client,
      version: config.defaultPullSecretVersion,
      callOptions: secretManagerCallOptions(context, insecureEmulator(config), token),
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
/** Where the doctor calls Secret Manager: as the job does (doctor-config.ts). */
const secretManagerEndpoint = (config: DoctorContext['config']) => ({
  ...(config.emulators.secretManager ? { emulatorHost: config.emulators.secretManager } : {}),
  ...(config.emulators.secretManagerApiEndpoint
    ? { apiEndpoint: config.emulators.secretManagerApiEndpoint }
    : {}),
});

/**
 * A cleartext emulator, where grpc-js sends no call credentials: the job's token goes as a plain
 * header instead, so a standalone emulator with IAM still sees who asks. Over TLS (Google's or
 * an API endpoint) the client attaches the token itself.
 */
const insecureEmulator = (config: DoctorContext['config']) =>
  config.emulators.secretManager !== undefined &&
  config.emulators.secretManagerApiEndpoint === undefined;

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
