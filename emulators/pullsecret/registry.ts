import type { RunningEmulator } from '../common/emulator';
import fs from 'node:fs';
import { connectGatewayConfigSchema, startConnectGatewayEmulator } from '../connect-gateway/server';
import { eventarcConfigSchema } from '../eventarc/rules';
import { startEventarcEmulator } from '../eventarc/server';
import { routedBySink } from '../cloud-run/audit-entries';
import { createFinishedPublisher } from '../cloud-run/finished-publisher';
import { jobDefinitionsSchema } from '../cloud-run/job-definitions';
import { startCloudRunEmulator } from '../cloud-run/server';
import { cloudTasksConfigSchema } from '../cloud-tasks/config';
import { startCloudTasksEmulator } from '../cloud-tasks/server';
import { metadataServerMinter } from '../cloud-tasks/http-attempt';
import { gkeClusterName } from '../kube-apiserver/gke-iam';
import { rbacTableSchema } from '../kube-apiserver/rbac';
import { startKubeApiServerEmulator } from '../kube-apiserver/server';
import { startMetadataServer } from '../metadata-server/server';
import { iamConfigSchema } from '../common/iam/iam-config';
import { startSecretManagerEmulator } from '../secret-manager/server';
import { parseDurationMs } from '../../shared/config/durations';
import { googleApiOptions, readServingCertificate, type EmulatorArgs } from './emulator-args';
import {
  startHyperFleetApiFromArgs,
  startHyperShiftFromArgs,
  startSentinelFromArgs,
} from './registry-hyperfleet';

/** Every emulator `npm run emulators -- <name>` can start, by name. */
export const EMULATORS: Record<string, (args: EmulatorArgs) => Promise<RunningEmulator>> = {
  // --config FILE: memberships, gateway grants and the token-info URL (connect-gateway/server.ts);
  // --serving-cert-dir DIR: its certificate, from the local "public" CA.
  'connect-gateway': (args) => {
    if (!args.options.config || !args.options['serving-cert-dir'])
      throw new Error('connect-gateway needs --config FILE and --serving-cert-dir DIR');
    return startConnectGatewayEmulator({
      config: connectGatewayConfigSchema.parse(
        JSON.parse(fs.readFileSync(args.options.config, 'utf8')),
      ),
      certificate: readServingCertificate(args.options['serving-cert-dir']),
      port: args.port,
    });
  },
  // --config FILE: the triggers it serves, who may read them and the token-info URL
  // (eventarc/rules.ts); its ready line's env has EVENTARC_EMULATOR_HOST.
  eventarc: (args) => {
    if (!args.options.config) throw new Error('eventarc needs --config FILE');
    return startEventarcEmulator({
      config: eventarcConfigSchema.parse(JSON.parse(fs.readFileSync(args.options.config, 'utf8'))),
      host: args.host,
      port: args.port,
    });
  },
  // --iam-file FILE: allow policies (common/iam/iam-config.ts), checked on every call that
  // carries a bearer token; --google-token-info URL: where those tokens are looked up;
  // --pubsub HOST:PORT (else PUBSUB_EMULATOR_HOST): where Secret.topics notifications go.
  'secret-manager': (args) => {
    const pubsub = args.options.pubsub ?? process.env.PUBSUB_EMULATOR_HOST;
    return startSecretManagerEmulator({
      host: args.host,
      port: args.port,
      adminPort: args.adminPort,
      ...(args.dataDir ? { dataDir: args.dataDir } : {}),
      ...(pubsub ? { pubsubEmulatorHost: pubsub } : {}),
      ...(args.options['iam-file']
        ? {
            iam: iamConfigSchema.parse(
              JSON.parse(fs.readFileSync(args.options['iam-file'], 'utf8')),
            ),
          }
        : {}),
      ...(args.options['google-token-info']
        ? { googleTokenInfoUrl: args.options['google-token-info'] }
        : {}),
      // --enforce-iam: calls without credentials are UNAUTHENTICATED; --serving-cert-dir DIR: TLS.
      ...(args.options['enforce-iam'] !== undefined ? { enforceIam: true } : {}),
      ...(args.options['serving-cert-dir']
        ? { certificate: readServingCertificate(args.options['serving-cert-dir']) }
        : {}),
    });
  },
  // The metadata server of a Cloud Run instance (tokens for the job, token info for Kubernetes):
  // --service-account EMAIL [--unique-id N] [--project-id P] [--project-number N] [--region R]
  // [--token-lifetime 3599s]; its ready line's env has GCE_METADATA_HOST.
  'metadata-server': (args) => {
    const serviceAccount = args.options['service-account'];
    if (!serviceAccount)
      throw new Error("metadata-server needs --service-account EMAIL (the job's identity)");
    const lifetime = args.options['token-lifetime'];
    const lifetimeMs = lifetime === undefined ? undefined : parseDurationMs(lifetime);
    return startMetadataServer({
      host: args.host,
      port: args.port,
      serviceAccount,
      // --also-serve A,B: more accounts, each on its own port (one per component, as Cloud Run
      // gives each service its own identity and metadata server).
      ...(args.options['also-serve']
        ? { additionalAccounts: args.options['also-serve'].split(',').filter(Boolean) }
        : {}),
      ...(args.options['unique-id'] ? { uniqueId: args.options['unique-id'] } : {}),
      ...(args.options['project-id'] ? { projectId: args.options['project-id'] } : {}),
      ...(args.options['project-number'] ? { projectNumber: args.options['project-number'] } : {}),
      ...(args.options.region ? { region: args.options.region } : {}),
      ...(lifetimeMs !== undefined ? { tokenLifetimeSeconds: lifetimeMs / 1000 } : {}),
    });
  },
  // Positional arguments are namespaces to create, e.g. `kube-apiserver clusters-demo`;
  // --rbac-file FILE adds static tokens (a JSON table: token -> {user, groups?, rules?}), kept off
  // the command line; --google-token-info URL authenticates Google access tokens as GKE does;
  // --serving-cert-dir DIR serves ca.crt/server.crt/server.key from there (a DNS endpoint's
  // publicly trusted certificate) instead of a generated cluster CA; --iam-file FILE with
  // --gke-cluster projects/P/locations/L/clusters/C adds GKE's IAM layer for Google identities
  // (kube-apiserver/gke-iam.ts: container.clusters.get to get in, container.* beside RBAC).
  'kube-apiserver': (args) => {
    const iamFile = args.options['iam-file'];
    const cluster = args.options['gke-cluster'];
    if ((iamFile === undefined) !== (cluster === undefined))
      throw new Error(
        'kube-apiserver: --iam-file FILE and --gke-cluster projects/P/locations/L/clusters/C go together',
      );
    return startKubeApiServerEmulator({
      host: args.host,
      port: args.port,
      namespaces: args.rest,
      ...(args.options['google-token-info']
        ? { googleTokenInfoUrl: args.options['google-token-info'] }
        : {}),
      ...(args.options['serving-cert-dir']
        ? { certificate: readServingCertificate(args.options['serving-cert-dir']) }
        : {}),
      ...(args.options['rbac-file']
        ? {
            rbac: rbacTableSchema.parse(
              JSON.parse(fs.readFileSync(args.options['rbac-file'], 'utf8')),
            ),
          }
        : {}),
      ...(iamFile !== undefined && cluster !== undefined
        ? {
            iam: {
              config: iamConfigSchema.parse(JSON.parse(fs.readFileSync(iamFile, 'utf8'))),
              cluster: gkeClusterName.parse(cluster),
            },
          }
        : {}),
      ...(args.dataDir ? { stateDir: args.dataDir } : {}),
    });
  },
  // --required-adapters a,b,c; --simulate-adapters (validation, dns and placement report by themselves;
  // --management-clusters a,b: placement spreads clusters over these, as `data.managementCluster`);
  // --token-file FILE (or --token TOKEN=identity) turns JWT authentication on; --tenancy requires
  // the dev config's tenancy headers; --spec-schema gcp validates cluster specs (default any).
  // OTEL_* (the local stack sets them) turn on a SERVER span per request, as the API's middleware.
  'hyperfleet-api': startHyperFleetApiFromArgs,
  // --config jobs.json (a list of {name, command, env, timeoutSeconds, maxRetries, memoryLimitMiB, logDir});
  // --finished-topic projects/P/topics/T publishes execution-finished entries to the Pub/Sub emulator;
  // --iam-file FILE --google-token-info URL [--enforce-iam] check IAM on the gRPC and REST calls,
  // --serving-cert-dir DIR serves them over TLS (emulator-args.ts googleApiOptions).
  'cloud-run': async (args) => {
    const configFile = args.options.config;
    if (!configFile)
      throw new Error(
        'cloud-run needs --config FILE: a JSON list of job definitions (see docs/emulators.md)',
      );
    const jobs = jobDefinitionsSchema.parse(JSON.parse(fs.readFileSync(configFile, 'utf8')));
    const topic = args.options['finished-topic'];
    const emulatorHost = process.env.PUBSUB_EMULATOR_HOST;
    if (topic && !emulatorHost)
      throw new Error(
        '--finished-topic needs PUBSUB_EMULATOR_HOST (the Pub/Sub emulator) in the environment',
      );
    const publisher =
      topic && emulatorHost ? createFinishedPublisher(topic, emulatorHost) : undefined;
    const quota = args.options['run-quota'];
    if (quota !== undefined && !/^[1-9]\d*$/.test(quota))
      throw new Error(
        `--run-quota takes RunJob calls a minute, a whole number of at least 1 (got "${quota}")`,
      );
    const emulator = await startCloudRunEmulator({
      host: args.host,
      port: args.port,
      adminPort: args.adminPort,
      jobs,
      ...googleApiOptions(args),
      ...(quota ? { runJobQuotaPerMinute: Number(quota) } : {}),
      // Cloud Run writes three audit entries a RunJob (audit-entries.ts); the sink routes one.
      ...(publisher
        ? {
            onAuditEntry: (entry: Record<string, unknown>) =>
              routedBySink(entry) ? publisher.publish(entry) : undefined,
          }
        : {}),
      baseEnv: Object.fromEntries(
        Object.entries(process.env).filter(
          (e): e is [string, string] =>
            typeof e[1] === 'string' &&
            [
              'PATH',
              'HOME',
              'LANG',
              'NODE_EXTRA_CA_CERTS',
              'METADATA_SERVER_DETECTION',
              'PUBSUB_EMULATOR_HOST',
            ].includes(e[0]),
        ),
      ),
    });
    return {
      ...emulator,
      stop: async () => {
        await emulator.stop();
        await publisher?.close();
      },
    };
  },
  // [--config FILE]: the queues to create at start and the dedupe window (cloud-tasks/config.ts);
  // its ready line's env has CLOUD_TASKS_EMULATOR_HOST. Dispatches in real time. IAM and TLS flags
  // as cloud-run's.
  'cloud-tasks': (args) => {
    const config = cloudTasksConfigSchema.parse(
      args.options.config ? JSON.parse(fs.readFileSync(args.options.config, 'utf8')) : {},
    );
    const tombstone = config.taskTombstone ? parseDurationMs(config.taskTombstone) : undefined;
    return startCloudTasksEmulator({
      host: args.host,
      port: args.port,
      adminPort: args.adminPort,
      queues: config.queues,
      ...googleApiOptions(args),
      // --token-minter URL: OAuthToken tasks carry real tokens minted there (the metadata server's
      // POST /_emulator/tokens/mint), as the Cloud Tasks service agent mints them.
      ...(args.options['token-minter']
        ? { mintToken: metadataServerMinter(args.options['token-minter']) }
        : {}),
      ...(tombstone !== undefined ? { taskTombstoneMs: tombstone } : {}),
    });
  },
  // --hyperfleet URL [--hyperfleet-token-file FILE] --topic projects/P/topics/T [--poll-interval 1s --not-ready-interval 10s --ready-interval 30m]; needs PUBSUB_EMULATOR_HOST.
  sentinel: startSentinelFromArgs,
  // The simulated HyperShift adapter (seed 004): --hyperfleet URL [--hyperfleet-token-file FILE]
  // --management-clusters-file FILE (JSON: name -> kubeconfig) --default-management-cluster NAME
  // [--poll-interval 1s].
  hypershift: startHyperShiftFromArgs,
};
