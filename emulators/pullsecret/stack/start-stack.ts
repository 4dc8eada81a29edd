import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startReadyProcess, type ReadyProcess } from '../../common/child-process';
import { freePort } from '../../common/free-port';
import { startPubSubEmulator, type PubSubEmulator } from '../../pubsub/pubsub-emulator';
import { wirePubSub } from '../../pubsub/wiring';
import { startAdapterInstances, type AdapterInstances } from './adapter-instances';
import { Components } from './components';
import type { DeliveryMode } from './eventarc-conversion';
import { startFunctionProcess } from './function-process';
import { startRoundRobinProxy } from './round-robin-proxy';
import { managementClusterSetup } from './cluster-setup';
import { hostedClusterCrds } from '../management-cluster/hosted-cluster-crd';
import {
  DEFAULT_MANAGEMENT_CLUSTER,
  DELIVERY,
  EVENTARC_SUBSCRIPTION,
  JOB_IDENTITY,
  JOB_NAME,
  LOCAL_PROJECT,
  MANAGEMENT_CLUSTER_MODES,
  MANAGEMENT_CLUSTERS,
  type ManagementClusterMode,
  READER_IDENTITY,
  REPORTER_IDENTITY,
  TARGET_PROJECTS,
  SUBSCRIPTIONS,
  TOPICS,
  topicPath,
} from './layout';
import { startClusterAccess } from './cluster-access';
import { startTraceReceiver } from '../../traces/receiver';
import { tracingEnv } from './tracing-env';
import { jobNodeArgs } from '../job-image';
import { localEventarc } from './delivery-triggers';
import { secretManagerIam } from './secret-manager-grants';

export interface StackOptions {
  /** Repository root (dist/ and node_modules/ live there). */
  readonly root: string;
  /** Where logs, the kubeconfig and state go (`.local` for npm start, a temp dir in tests). */
  readonly workDir: string;
  readonly logLevel?: 'debug' | 'info';
  /** Sentinel timing; the local defaults are short so that the system reacts quickly. */
  readonly sentinel?: { pollInterval?: string; notReadyInterval?: string; readyInterval?: string };
  /** Extra environment for the adapter, the reporter and the job (tests tune timings with it). */
  readonly adapterEnv?: Record<string, string>;
  readonly reporterEnv?: Record<string, string>;
  readonly jobEnv?: Record<string, string>;
  readonly jobTimeoutSeconds?: number;
  /**
   * Adapter processes behind the round-robin proxy (default 2): Cloud Run scales the function out,
   * so duplicate deliveries reach different processes at once (PULLSECRET_ADAPTER_INSTANCES).
   */
  readonly adapterInstances?: number;
  /**
   * `push` (default): push subscriptions post to the functions. `eventarc`: the pushes pass through
   * a converter that delivers them as Eventarc does (binary-mode CloudEvents), as LOCAL_DELIVERY says.
   */
  readonly delivery?: DeliveryMode;
  /**
   * How the job reaches each management cluster (default MANAGEMENT_CLUSTER_MODES: mgmt-1 by IP
   * endpoint and cluster CA, mgmt-2 through Connect Gateway); `dns` serves a publicly trusted
   * certificate as GKE's DNS endpoint does.
   */
  readonly managementClusterModes?: Readonly<Record<string, ManagementClusterMode>>;
  /** Called as each component becomes ready. */
  readonly onProgress?: (component: string, info: Record<string, unknown>) => void;
}

/** Endpoints and environment of a running local system (also written to stack.json). */
export interface StackDescription {
  readonly project: string;
  readonly pid: number;
  readonly startedAt: string;
  readonly workDir: string;
  readonly logDir: string;
  /** The admin kubeconfig of the default management cluster (mgmt-1), as before there were two. */
  readonly kubeconfig: string;
  /**
   * Every local management cluster by name: its admin kubeconfig and endpoint, how the job reaches
   * it (mode, and its MANAGEMENT_CLUSTERS entry: endpoint and, for an IP endpoint, the CA).
   */
  readonly managementClusters: Record<
    string,
    {
      readonly kubeconfig: string;
      readonly endpoint: string;
      readonly mode: ManagementClusterMode;
      readonly jobAccess: { readonly endpoint: string; readonly caCert?: string };
    }
  >;
  /** The job's user name in the management clusters (a Google service account email on GKE). */
  readonly jobIdentity: string;
  readonly job: string;
  /** How Pub/Sub messages reach the functions: push subscriptions, or converted to Eventarc's form. */
  readonly delivery: DeliveryMode;
  /** In eventarc mode, the converter in front of the reporter and its log (one JSON line per request). */
  readonly reporterConverter?: { readonly endpoint: string; readonly logFile: string };
  /** PID of every process the stack started, by component. */
  readonly processes: Record<string, number>;
  /**
   * The OTLP/HTTP JSON trace receiver every component exports to (OTEL_EXPORTER_OTLP_ENDPOINT),
   * and where it keeps spans (`npm run trace -- CLUSTER_ID` reads them).
   */
  readonly traces: { readonly endpoint: string; readonly dir: string };
  readonly endpoints: {
    readonly pubsub: string;
    readonly secretManager: string;
    readonly secretManagerAdmin: string;
    readonly kubeApiServer: string;
    readonly hyperfleetApi: string;
    readonly cloudRun: string;
    readonly cloudRunAdmin: string;
    /** The Eventarc emulator: the triggers of the delivery mode (none in push mode), and its admin API. */
    readonly eventarc: string;
    /** The metadata server that issues the job's Google access tokens (GCE_METADATA_HOST). */
    readonly metadataServer: string;
    /** The Connect Gateway in front of the clusters reached that way (absent when none is). */
    readonly connectGateway?: string;
    /** The local "public" CA (the gateway's and DNS endpoints' issuer; the job trusts it). */
    readonly publicCaFile: string;
    /** Where Pub/Sub pushes adapter events: the round-robin proxy in front of the instances. */
    readonly adapter: string;
    readonly reporter: string;
  };
  /** The adapter instances (each its own process, port and log file) and the proxy before them. */
  readonly adapters: AdapterInstances['description'];
  readonly topics: Record<string, string>;
  readonly subscriptions: Record<
    string,
    {
      subscription: string;
      topic: string;
      /** Absent in eventarc mode: Eventarc's subscription has no dead-letter policy. */
      deadLetterTopic?: string;
      pushEndpoint: string;
    }
  >;
  /** What a client (gcloud, kubectl, a script) needs to talk to the local system. */
  readonly env: Record<string, string>;
}

/** One variable of an emulator's ready line (its `env`), or nothing when it has none. */
function emulatorEnv(emulator: ReadyProcess, name: string): Record<string, string> {
  const env = emulator.info.env as Record<string, unknown> | undefined;
  const value = env?.[name];
  return typeof value === 'string' ? { [name]: value } : {};
}

/** A restartable component: `adapter` is every adapter instance at once, `adapter-2` only that one. */
export type RestartableComponent = 'adapter' | `adapter-${number}` | 'reporter' | 'pubsub';

export interface Stack {
  readonly description: StackDescription;
  /** Restarts a component the way an operator would (same port); the Pub/Sub emulator is re-wired. */
  restart(component: RestartableComponent): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the whole system on this machine, wired as in production: Google's Pub/Sub emulator, the
 * project's Secret Manager, Kubernetes API, HyperFleet API and Cloud Run Jobs emulators, the adapter
 * and reporter in functions-framework, push subscriptions with retries and dead-letter topics, and
 * a Sentinel. Every component gets a free port and a log file; a failure stops what was started.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const logDir = path.join(options.workDir, 'logs');
  fs.mkdirSync(path.join(logDir, 'jobs'), { recursive: true, mode: 0o700 });
  const log = (name: string) => path.join(logDir, `${name}.log`);
  const cli = path.join(options.root, 'dist/emulators/pullsecret/cli.js');
  // Every child stops by itself if this process dies without stopping it (see parent-watchdog.ts).
  const watchdog = [
    '--require',
    path.join(options.root, 'dist/emulators/common/parent-watchdog.js'),
  ];
  const baseEnv: NodeJS.ProcessEnv = {
    EXIT_WITH_PARENT_PID: String(process.pid),
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: process.env.LANG,
    ...(process.env.NODE_EXTRA_CA_CERTS
      ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS }
      : {}),
    METADATA_SERVER_DETECTION: 'none',
    GOOGLE_CLOUD_PROJECT: LOCAL_PROJECT,
  };
  const components = new Components();
  const stopAll = () => components.stopAll();
  const emulator = async (
    name: string,
    args: string[],
    env: NodeJS.ProcessEnv = baseEnv,
    component = name,
  ): Promise<ReadyProcess> => {
    const child = await startReadyProcess({
      command: process.execPath,
      args: [...watchdog, cli, name, ...args],
      env,
      logFile: log(component),
    });
    components.add(component, { pid: child.child.pid ?? -1, stop: () => child.stop() });
    options.onProgress?.(component, child.info);
    return child;
  };

  try {
    // First up, last down: every component's final flush (the job's shutdown) still lands.
    const traces = await startTraceReceiver({ dir: path.join(options.workDir, 'traces') });
    components.add('traces', { stop: () => traces.close() });
    options.onProgress?.('traces', { endpoint: traces.endpoint });
    const otel = tracingEnv(traces.endpoint);

    const startPubSub = (port?: number): Promise<PubSubEmulator> =>
      startPubSubEmulator({
        logFile: log('pubsub'),
        ...(port ? { port } : {}),
        guarded: {
          parentPid: process.pid,
          watchdog: watchdog[1]!,
          guard: path.join(options.root, 'dist/emulators/common/guard.js'),
        },
      });
    const pubsub: PubSubEmulator = await startPubSub();
    const pubsubPort = Number(pubsub.endpoint.split(':').pop());
    // Restarting loses topics and subscriptions (the emulator keeps none): wire them again.
    components.add('pubsub', pubsub, async () => {
      const restarted = await startPubSub(pubsubPort);
      await wire();
      return restarted;
    });
    options.onProgress?.('pubsub', pubsub.info());
    const pubsubEnv = { ...baseEnv, PUBSUB_EMULATOR_HOST: pubsub.endpoint };

    // The API as its dev config runs it: JWT and tenancy on, so every run exercises our bearer
    // token and tenancy headers; GCP cluster specs validated as the GCP provider schema says.
    const hyperfleetToken = path.join(options.workDir, 'hyperfleet-api-token');
    fs.writeFileSync(hyperfleetToken, `${randomBytes(24).toString('base64url')}\n`, {
      mode: 0o600,
    });
    // Independent emulators start together: start-up takes as long as the slowest, not the sum.
    const modes = options.managementClusterModes ?? MANAGEMENT_CLUSTER_MODES;
    const delivery = options.delivery ?? 'push';
    const [{ secretManager, access, eventarc }, hyperfleet] = await Promise.all([
      (async () => {
        const access = await startClusterAccess({
          root: options.root,
          workDir: options.workDir,
          clusters: MANAGEMENT_CLUSTERS.map((name) => ({ name, mode: modes[name] ?? 'ip' })),
          hypershiftToken: randomBytes(24).toString('hex'),
          setup: managementClusterSetup(hostedClusterCrds()),
          emulator: (name, args, component) => emulator(name, args, baseEnv, component),
        });
        // Google's side of the job's identity: Secret Manager with the allow policies Terraform
        // grants, and Eventarc with the triggers of this delivery mode, both knowing the job's
        // tokens from the metadata server's token info.
        const serviceAccounts = { [access.metadata.uniqueId]: JOB_IDENTITY };
        const iamFile = path.join(options.workDir, 'secret-manager-iam.json');
        fs.writeFileSync(
          iamFile,
          JSON.stringify(
            secretManagerIam({
              targetProjects: TARGET_PROJECTS,
              platformProject: LOCAL_PROJECT,
              identities: {
                job: JOB_IDENTITY,
                reader: READER_IDENTITY,
                reporter: REPORTER_IDENTITY,
              },
              serviceAccounts,
              ...(options.jobEnv?.DEFAULT_PULL_SECRET_VERSION
                ? { defaultPullSecretVersion: options.jobEnv.DEFAULT_PULL_SECRET_VERSION }
                : {}),
            }),
          ),
          { mode: 0o600 },
        );
        const eventarcFile = path.join(options.workDir, 'eventarc.json');
        fs.writeFileSync(
          eventarcFile,
          JSON.stringify(
            localEventarc({
              delivery,
              tokenInfoUrl: access.metadata.tokenInfoUrl,
              serviceAccounts,
            }),
          ),
          { mode: 0o600 },
        );
        const [secretManager, eventarc] = await Promise.all([
          emulator('secret-manager', [
            '--iam-file',
            iamFile,
            '--google-token-info',
            access.metadata.tokenInfoUrl,
          ]),
          emulator('eventarc', ['--config', eventarcFile]),
        ]);
        return { secretManager, access, eventarc };
      })(),
      emulator(
        'hyperfleet-api',
        [
          '--required-adapters',
          'validation,dns,placement,pullsecret,hypershift',
          '--simulate-adapters',
          '--management-clusters',
          MANAGEMENT_CLUSTERS.join(','),
          '--token-file',
          hyperfleetToken,
          '--tenancy',
          '--spec-schema',
          'gcp',
        ],
        { ...baseEnv, ...otel.hyperfleetApi },
      ),
    ]);
    const hyperfleetUrl = hyperfleet.info.endpoint as string;
    const managementClusters = access.clusters;
    const defaultCluster = managementClusters.find((c) => c.name === DEFAULT_MANAGEMENT_CLUSTER)!;
    const kubeconfig = defaultCluster.kubeconfig;
    const hypershiftClusters = path.join(options.workDir, 'hypershift-clusters.json');
    fs.writeFileSync(
      hypershiftClusters,
      JSON.stringify(
        Object.fromEntries(managementClusters.map((c) => [c.name, c.hypershiftKubeconfig])),
      ),
      { mode: 0o600 },
    );
    await emulator('hypershift', [
      '--hyperfleet',
      hyperfleetUrl,
      '--hyperfleet-token-file',
      hyperfleetToken,
      '--management-clusters-file',
      hypershiftClusters,
      '--default-management-cluster',
      DEFAULT_MANAGEMENT_CLUSTER,
      // About as often as Sentinel re-sends a not-ready cluster here.
      '--poll-interval',
      '1s',
    ]);

    const jobsFile = path.join(options.workDir, 'cloud-run-jobs.json');
    fs.writeFileSync(
      jobsFile,
      JSON.stringify([
        {
          name: JOB_NAME,
          // As the image runs it (its Dockerfile's flags and NODE_OPTIONS).
          // The image's ENTRYPOINT, and the args Terraform's job.tf gives the container (what
          // `gcloud run jobs execute --args=doctor` replaces).
          command: [
            process.execPath,
            ...jobNodeArgs(),
            path.join(options.root, 'dist-bundle/pull-secret-job/main.mjs'),
          ],
          args: ['run-job', 'pull-secret'],
          timeoutSeconds: options.jobTimeoutSeconds ?? 120,
          maxRetries: 0,
          memoryLimitMiB: 512,
          logDir: path.join(logDir, 'jobs'),
          env: {
            SECRET_MANAGER_EMULATOR_HOST: secretManager.info.endpoint as string,
            // What `pull-secret doctor` reads besides the job's own services: Resource Manager's
            // testIamPermissions (on the Secret Manager emulator) and Eventarc's triggers.
            ...emulatorEnv(secretManager, 'RESOURCE_MANAGER_EMULATOR_HOST'),
            ...emulatorEnv(eventarc, 'EVENTARC_EMULATOR_HOST'),
            // Every management cluster as production names it (an endpoint, a CA only for an
            // IP endpoint), reached with the job's Google token from the metadata server.
            ...access.jobEnv,
            DEFAULT_MANAGEMENT_CLUSTER,
            HYPERFLEET_API_BASE_URL: hyperfleetUrl,
            HYPERFLEET_API_AUTH_TOKEN_PATH: hyperfleetToken,
            RESULTS_TOPIC: topicPath(TOPICS.results),
            PUBSUB_EMULATOR_HOST: pubsub.endpoint,
            LOG_FORMAT: 'json',
            LOG_LEVEL: options.logLevel ?? 'info',
            RETRY_BASE_DELAY: '200ms',
            GCP_API_TIMEOUT: '10s',
            KUBERNETES_NAMESPACE_WAIT: '30s',
            // The platform project logs and spans are filed under (Terraform sets it in GCP).
            GOOGLE_CLOUD_PROJECT: LOCAL_PROJECT,
            ...otel.components,
            ...options.jobEnv,
          },
        },
      ]),
    );
    const cloudRun = await emulator(
      'cloud-run',
      ['--config', jobsFile, '--finished-topic', topicPath(TOPICS.finished)],
      pubsubEnv,
    );

    const functionEnv = {
      ...baseEnv,
      HYPERFLEET_API_BASE_URL: hyperfleetUrl,
      HYPERFLEET_API_AUTH_TOKEN_PATH: hyperfleetToken,
      PULL_SECRET_JOB: JOB_NAME,
      CLOUD_RUN_EMULATOR_HOST: cloudRun.info.endpoint as string,
      SECRET_MANAGER_EMULATOR_HOST: secretManager.info.endpoint as string,
      LOG_FORMAT: 'json',
      LOG_LEVEL: options.logLevel ?? 'info',
      ...otel.components,
    };
    const functionHandle = async (start: () => Promise<ReadyProcess>) => {
      const started = await start();
      return { pid: started.child.pid ?? -1, stop: () => started.stop() };
    };
    const adapters = await startAdapterInstances({
      count: options.adapterInstances ?? 2,
      delivery,
      components,
      logFile: log,
      start: (port, logFile) =>
        functionHandle(() =>
          startFunctionProcess({
            root: options.root,
            nodeArgs: watchdog,
            target: 'adapter',
            port,
            logFile,
            env: {
              ...functionEnv,
              RESYNC_INTERVAL: '30m',
              EXECUTION_TIMEOUT: `${(options.jobTimeoutSeconds ?? 120) + 30}s`,
              RETRY_BACKOFF_BASE: '2s',
              RETRY_BACKOFF_MAX: '30s',
              PERMANENT_FAILURE_RETRY_INTERVAL: '10m',
              STATUS_HEARTBEAT_INTERVAL: '1m',
              ...options.adapterEnv,
            },
          }),
        ),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    const reporterPort = await freePort();
    const startReporter = () =>
      startFunctionProcess({
        root: options.root,
        nodeArgs: watchdog,
        target: 'reporter',
        port: reporterPort,
        logFile: log('reporter'),
        env: { ...functionEnv, ...options.reporterEnv },
      });
    components.add('reporter', await functionHandle(startReporter), () =>
      functionHandle(startReporter),
    );
    options.onProgress?.('reporter', { endpoint: `http://127.0.0.1:${reporterPort}/` });

    // Eventarc mode: the reporter too receives what Eventarc sends, through a one-target converter.
    let reporterConverter: StackDescription['reporterConverter'];
    if (delivery === 'eventarc') {
      const logFile = log('reporter-converter');
      const converter = await startRoundRobinProxy({
        targets: [{ name: 'reporter', port: reporterPort }],
        logFile,
        delivery,
      });
      components.add('reporter-converter', { stop: () => converter.close() });
      reporterConverter = { endpoint: converter.endpoint, logFile };
      options.onProgress?.('reporter-converter', { endpoint: `${converter.endpoint}/` });
    }
    const adapterUrl = adapters.description.proxy.endpoint;
    const reporterUrl = reporterConverter?.endpoint ?? `http://127.0.0.1:${reporterPort}`;
    const push = (base: string, topic: string) =>
      `${base}/projects/${LOCAL_PROJECT}/topics/${topic}`;
    const subscriptions = {
      adapter: { ...SUBSCRIPTIONS.adapter, pushEndpoint: push(adapterUrl, TOPICS.sentinel) },
      results: { ...SUBSCRIPTIONS.results, pushEndpoint: push(reporterUrl, TOPICS.results) },
      finished: { ...SUBSCRIPTIONS.finished, pushEndpoint: push(reporterUrl, TOPICS.finished) },
    };
    const wire = () =>
      wirePubSub(
        pubsub.endpoint,
        LOCAL_PROJECT,
        Object.values(subscriptions).map((s) => ({
          topic: s.topic,
          subscription: s.name,
          pushEndpoint: s.pushEndpoint,
          ...DELIVERY,
          ...(delivery === 'eventarc' ? EVENTARC_SUBSCRIPTION : { deadLetterTopic: s.deadLetter }),
        })),
      );
    await wire();
    options.onProgress?.('pubsub-wiring', {
      subscriptions: Object.values(subscriptions).map((s) => s.name),
    });

    const sentinelTiming = {
      pollInterval: '1s',
      notReadyInterval: '3s',
      readyInterval: '60s',
      ...options.sentinel,
    };
    await emulator(
      'sentinel',
      [
        '--hyperfleet',
        hyperfleetUrl,
        '--hyperfleet-token-file',
        hyperfleetToken,
        '--topic',
        topicPath(TOPICS.sentinel),
        '--poll-interval',
        sentinelTiming.pollInterval,
        '--not-ready-interval',
        sentinelTiming.notReadyInterval,
        '--ready-interval',
        sentinelTiming.readyInterval,
      ],
      { ...pubsubEnv, ...otel.sentinel },
    );

    const description: StackDescription = {
      project: LOCAL_PROJECT,
      pid: process.pid,
      startedAt: new Date().toISOString(),
      workDir: options.workDir,
      logDir,
      kubeconfig,
      managementClusters: Object.fromEntries(
        managementClusters.map((c) => [
          c.name,
          { kubeconfig: c.kubeconfig, endpoint: c.endpoint, mode: c.mode, jobAccess: c.jobAccess },
        ]),
      ),
      jobIdentity: JOB_IDENTITY,
      job: JOB_NAME,
      delivery,
      ...(reporterConverter ? { reporterConverter } : {}),
      processes: components.pids,
      traces: { endpoint: traces.endpoint, dir: traces.dir },
      endpoints: {
        pubsub: pubsub.endpoint,
        secretManager: secretManager.info.endpoint as string,
        secretManagerAdmin: secretManager.info.admin as string,
        kubeApiServer: defaultCluster.endpoint,
        hyperfleetApi: hyperfleetUrl,
        cloudRun: cloudRun.info.endpoint as string,
        cloudRunAdmin: cloudRun.info.admin as string,
        eventarc: eventarc.info.endpoint as string,
        metadataServer: access.metadata.endpoint,
        ...(access.gateway ? { connectGateway: access.gateway } : {}),
        publicCaFile: access.publicCaFile,
        adapter: adapterUrl,
        reporter: reporterUrl,
      },
      adapters: adapters.description,
      topics: Object.fromEntries(Object.entries(TOPICS).map(([k, t]) => [k, topicPath(t)])),
      subscriptions: Object.fromEntries(
        Object.entries(subscriptions).map(([k, s]) => [
          k,
          {
            subscription: `projects/${LOCAL_PROJECT}/subscriptions/${s.name}`,
            topic: topicPath(s.topic),
            ...(delivery === 'eventarc' ? {} : { deadLetterTopic: topicPath(s.deadLetter) }),
            pushEndpoint: s.pushEndpoint,
          },
        ]),
      ),
      env: {
        GOOGLE_CLOUD_PROJECT: LOCAL_PROJECT,
        PUBSUB_EMULATOR_HOST: pubsub.endpoint,
        SECRET_MANAGER_EMULATOR_HOST: secretManager.info.endpoint as string,
        CLOUD_RUN_EMULATOR_HOST: cloudRun.info.endpoint as string,
        HYPERFLEET_API_BASE_URL: hyperfleetUrl,
        HYPERFLEET_API_AUTH_TOKEN_PATH: hyperfleetToken,
        KUBECONFIG: kubeconfig,
        METADATA_SERVER_DETECTION: 'none',
        ...emulatorEnv(secretManager, 'RESOURCE_MANAGER_EMULATOR_HOST'),
        ...emulatorEnv(eventarc, 'EVENTARC_EMULATOR_HOST'),
      },
    };
    return {
      description,
      stop: stopAll,
      restart: (component) =>
        component === 'adapter' ? adapters.restartAll() : components.restart(component),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
