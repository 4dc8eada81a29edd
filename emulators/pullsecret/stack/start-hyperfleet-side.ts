import { randomBytes } from 'node:crypto';
import type { ManagementCluster } from './management-clusters';
import { DEFAULT_MANAGEMENT_CLUSTER, MANAGEMENT_CLUSTERS, TOPICS, topicPath } from './layout';
import type { Launcher } from './launcher';

/**
 * The bearer token every HyperFleet caller of the stack sends, in an owner-only file
 * (HYPERFLEET_API_AUTH_TOKEN_PATH): the path.
 */
export function writeHyperFleetToken(launcher: Launcher): string {
  return launcher.writePrivateFile(
    'hyperfleet-api-token',
    `${randomBytes(24).toString('base64url')}\n`,
  );
}

/**
 * The API as its dev config runs it: JWT and tenancy on, so every run exercises our bearer token
 * and tenancy headers; GCP cluster specs validated as the GCP provider schema says. Validation,
 * dns and placement are simulated (placement spreads clusters over the management clusters).
 * Its URL.
 */
export async function startHyperFleetApi(
  launcher: Launcher,
  tokenFile: string,
  otelEnv: Record<string, string>,
): Promise<string> {
  const api = await launcher.emulator(
    'hyperfleet-api',
    [
      '--required-adapters',
      'validation,dns,placement,pullsecret,hypershift',
      '--simulate-adapters',
      '--management-clusters',
      MANAGEMENT_CLUSTERS.join(','),
      // Placement reports the HostedCluster namespace under the stack's layout.
      '--namespace-template',
      launcher.layout.current.template,
      '--token-file',
      tokenFile,
      '--tenancy',
      '--spec-schema',
      'gcp',
    ],
    { ...launcher.baseEnv, ...otelEnv },
  );
  return api.info.endpoint as string;
}

/** The simulated HyperShift adapter, reading HostedClusters on every management cluster. */
export async function startHyperShiftSimulator(
  launcher: Launcher,
  hyperfleetUrl: string,
  tokenFile: string,
  clusters: readonly ManagementCluster[],
): Promise<void> {
  const clustersFile = launcher.writePrivateFile(
    'hypershift-clusters.json',
    JSON.stringify(Object.fromEntries(clusters.map((c) => [c.name, c.hypershiftKubeconfig]))),
  );
  await launcher.emulator('hypershift', [
    '--hyperfleet',
    hyperfleetUrl,
    '--hyperfleet-token-file',
    tokenFile,
    '--management-clusters-file',
    clustersFile,
    '--default-management-cluster',
    DEFAULT_MANAGEMENT_CLUSTER,
    // About as often as Sentinel re-sends a not-ready cluster here.
    '--poll-interval',
    '1s',
  ]);
}

/** Sentinel, publishing reconcile events to the adapter's topic; short local timings by default. */
export async function startSentinelProcess(
  launcher: Launcher,
  hyperfleetUrl: string,
  tokenFile: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const timing = {
    pollInterval: '1s',
    notReadyInterval: '3s',
    readyInterval: '60s',
    ...launcher.options.sentinel,
  };
  await launcher.emulator(
    'sentinel',
    [
      '--hyperfleet',
      hyperfleetUrl,
      '--hyperfleet-token-file',
      tokenFile,
      '--topic',
      topicPath(TOPICS.sentinel),
      '--poll-interval',
      timing.pollInterval,
      '--not-ready-interval',
      timing.notReadyInterval,
      '--ready-interval',
      timing.readyInterval,
    ],
    env,
  );
}
