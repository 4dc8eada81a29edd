import type { RunningEmulator } from '../common/emulator';
import fs from 'node:fs';
import path from 'node:path';
import type { ServingCertificate } from '../common/certificates';
import { connectGatewayConfigSchema, startConnectGatewayEmulator } from '../connect-gateway/server';
import { eventarcConfigSchema } from '../eventarc/rules';
import { startEventarcEmulator } from '../eventarc/server';
import { createFinishedPublisher } from '../cloud-run/finished-publisher';
import { jobDefinitionsSchema } from '../cloud-run/job-definitions';
import { startCloudRunEmulator } from '../cloud-run/server';
import { DEV_TENANCY, startHyperFleetApiEmulator } from '../hyperfleet-api/server';
import { LOCAL_SIMULATED_ADAPTERS, localSimulatedAdapters } from './hyperfleet/simulated-adapters';
import { rbacTableSchema } from '../kube-apiserver/rbac';
import { startKubeApiServerEmulator } from '../kube-apiserver/server';
import { startHyperShift } from './hypershift/start-hypershift';
import { startMetadataServer } from '../metadata-server/server';
import { iamConfigSchema } from '../secret-manager/iam/iam-config';
import { startSecretManagerEmulator } from '../secret-manager/server';
import { startSentinel } from './sentinel/start-sentinel';
import { parseDurationMs } from '../../shared/config/durations';
import { createLogger } from '../../shared/logging/logger';
import { withTracing } from './emulator-tracing';

/** Command-line options every emulator understands, plus its own. */
export interface EmulatorArgs {
  readonly host: string;
  readonly port: number;
  readonly adminPort: number;
  readonly dataDir?: string;
  /** Positional arguments after the emulator name (e.g. namespaces to seed). */
  readonly rest: readonly string[];
  readonly options: Readonly<Record<string, string | undefined>>;
}

/** A bearer token kept in a file (never on a command line, where `ps` would show it). */
function readTokenFile(file: string): string {
  const token = fs.readFileSync(file, 'utf8').trim();
  if (token === '') throw new Error(`--token-file ${file} is empty`);
  return token;
}

/** ca.crt, server.crt and server.key of a folder (see emulators/common/certificates.ts). */
function readServingCertificate(dir: string): ServingCertificate {
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
  return { caPem: read('ca.crt'), certPem: read('server.crt'), keyPem: read('server.key') };
}

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
  // --iam-file FILE: allow policies (secret-manager/iam/iam-config.ts), checked on every call that
  // carries a bearer token; --google-token-info URL: where those tokens are looked up.
  'secret-manager': (args) =>
    startSecretManagerEmulator({
      host: args.host,
      port: args.port,
      adminPort: args.adminPort,
      ...(args.dataDir ? { dataDir: args.dataDir } : {}),
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
    }),
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
  // publicly trusted certificate) instead of a generated cluster CA.
  'kube-apiserver': (args) =>
    startKubeApiServerEmulator({
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
      ...(args.dataDir ? { stateDir: args.dataDir } : {}),
    }),
  // --required-adapters a,b,c; --simulate-adapters (validation, dns and placement report by themselves;
  // --management-clusters a,b: placement spreads clusters over these, as `data.managementCluster`);
  // --token-file FILE (or --token TOKEN=identity) turns JWT authentication on; --tenancy requires
  // the dev config's tenancy headers; --spec-schema gcp validates cluster specs (default any).
  // OTEL_* (the local stack sets them) turn on a SERVER span per request, as the API's middleware.
  'hyperfleet-api': (args) =>
    withTracing(process.env, 'hyperfleet-api', undefined, () =>
      startHyperFleetApiEmulator({
        ...(args.options['token-file']
          ? { tokens: { [readTokenFile(args.options['token-file'])]: 'local-stack' } }
          : {}),
        ...(args.options.tenancy !== undefined ? { tenancy: DEV_TENANCY } : {}),
        ...(args.options['spec-schema'] === 'gcp' ? { clusterSpecSchema: 'gcp' as const } : {}),
        host: args.host,
        port: args.port,
        ...(args.options['required-adapters']
          ? { requiredAdapters: args.options['required-adapters'].split(',') }
          : {}),
        ...(args.options['simulate-adapters'] !== undefined
          ? {
              simulatedAdapters: args.options['management-clusters']
                ? localSimulatedAdapters(args.options['management-clusters'].split(','))
                : LOCAL_SIMULATED_ADAPTERS,
            }
          : {}),
        ...(args.options.token
          ? { tokens: Object.fromEntries([args.options.token.split('=') as [string, string]]) }
          : {}),
      }),
    ),
  // --config jobs.json (a list of {name, command, env, timeoutSeconds, maxRetries, memoryLimitMiB, logDir});
  // --finished-topic projects/P/topics/T publishes execution-finished entries to the Pub/Sub emulator.
  'cloud-run': async (args) => {
    const configFile = args.options.config;
    if (!configFile)
      throw new Error(
        'cloud-run needs --config FILE: a JSON list of job definitions (see README, Emulators)',
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
    const emulator = await startCloudRunEmulator({
      host: args.host,
      port: args.port,
      adminPort: args.adminPort,
      jobs,
      ...(publisher
        ? { onExecutionFinished: (entry: Record<string, unknown>) => publisher.publish(entry) }
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
  // --hyperfleet URL [--hyperfleet-token-file FILE] --topic projects/P/topics/T [--poll-interval 1s --not-ready-interval 10s --ready-interval 30m]; needs PUBSUB_EMULATOR_HOST.
  sentinel: async (args) => {
    const need = (name: string) => {
      const value = args.options[name];
      if (!value) throw new Error(`sentinel needs --${name}`);
      return value;
    };
    const duration = (name: string, fallback: string) =>
      parseDurationMs(args.options[name] ?? fallback) ?? Number.NaN;
    const emulatorHost = process.env.PUBSUB_EMULATOR_HOST;
    if (!emulatorHost)
      throw new Error(
        'sentinel needs PUBSUB_EMULATOR_HOST (the Pub/Sub emulator) in the environment',
      );
    const logger = createLogger({ component: 'sentinel', level: 'info', format: 'json' });
    // OTEL_* turn on `sentinel.publish` spans and the events' traceparent, as real Sentinel's.
    return withTracing(process.env, 'hyperfleet-sentinel', logger, () =>
      startSentinel({
        hyperfleetBaseUrl: need('hyperfleet'),
        ...(args.options['hyperfleet-token-file']
          ? { hyperfleetTokenFile: args.options['hyperfleet-token-file'] }
          : {}),
        topic: need('topic'),
        pubsubEmulatorHost: emulatorHost,
        pollMs: duration('poll-interval', '1s'),
        notReadyMs: duration('not-ready-interval', '10s'),
        readyMs: duration('ready-interval', '30m'),
        logger,
      }),
    );
  },
  // The simulated HyperShift adapter (seed 004): --hyperfleet URL [--hyperfleet-token-file FILE]
  // --management-clusters-file FILE (JSON: name -> kubeconfig) --default-management-cluster NAME
  // [--poll-interval 1s].
  hypershift: (args) => {
    const need = (name: string) => {
      const value = args.options[name];
      if (!value) throw new Error(`hypershift needs --${name}`);
      return value;
    };
    const pollMs = parseDurationMs(args.options['poll-interval'] ?? '1s');
    if (pollMs === undefined) throw new Error('--poll-interval must be a duration such as 1s');
    return startHyperShift({
      hyperfleetBaseUrl: need('hyperfleet'),
      ...(args.options['hyperfleet-token-file']
        ? { hyperfleetTokenFile: args.options['hyperfleet-token-file'] }
        : {}),
      clustersFile: need('management-clusters-file'),
      defaultCluster: need('default-management-cluster'),
      pollMs,
      logger: createLogger({ component: 'hypershift', level: 'info', format: 'json' }),
    });
  },
};
