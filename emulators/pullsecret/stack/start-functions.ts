import { layoutEnv } from '../../../shared/pull-secret/namespace-layout';
import type { ReadyProcess } from '../../common/child-process';
import { freePort } from '../../common/free-port';
import { startAdapterInstances, type AdapterInstances } from './adapter-instances';
import type { ComponentHandle } from './components';
import { defaultVersionEnv } from './default-pull-secret';
import type { DeliveryMode } from './eventarc-conversion';
import { startFunctionProcess } from './function-process';
import { JOB_NAME } from './layout';
import type { Launcher } from './launcher';
import { startRoundRobinProxy } from './round-robin-proxy';
import type { StackDescription } from './stack-description';

/** What the adapter and the reporter reach, and how they log and trace. */
export interface FunctionWiring {
  readonly hyperfleetUrl: string;
  readonly hyperfleetToken: string;
  readonly cloudRunEndpoint: string;
  readonly secretManagerEndpoint: string;
  /** Each function's own metadata server (GCE_METADATA_HOST): its own Google identity. */
  readonly identities: { readonly adapter: string; readonly reporter: string };
  /** The roots grpc-js trusts for the TLS Google API emulators. */
  readonly caFile: string;
  readonly otelEnv: Record<string, string>;
  /** The launch queue and Cloud Run's REST jobs.run, for the adapter only (start-launch-queue.ts). */
  readonly launchEnv: Record<string, string>;
}

/** The adapter instances and the reporter, with the endpoints Pub/Sub pushes to. */
export interface StartedFunctions {
  readonly adapters: AdapterInstances;
  readonly adapterUrl: string;
  readonly reporterUrl: string;
  readonly reporterConverter: StackDescription['reporterConverter'];
}

/** The environment both functions share (Terraform sets the same variables on both). */
function functionEnv(launcher: Launcher, wiring: FunctionWiring): NodeJS.ProcessEnv {
  return {
    ...launcher.baseEnv,
    HYPERFLEET_API_BASE_URL: wiring.hyperfleetUrl,
    HYPERFLEET_API_AUTH_TOKEN_PATH: wiring.hyperfleetToken,
    PULL_SECRET_JOB: JOB_NAME,
    // Over TLS with the function's own token (the emulator enforces IAM); CLOUD_RUN_API_ENDPOINT,
    // the REST root the launch tasks call, is another port locally.
    CLOUD_RUN_GRPC_ENDPOINT: wiring.cloudRunEndpoint,
    // Over TLS with the function's own token, as on Google's endpoint (the emulator enforces IAM):
    // Application Default Credentials from the function's metadata server (as on Cloud Run).
    SECRET_MANAGER_API_ENDPOINT: wiring.secretManagerEndpoint,
    GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: wiring.caFile,
    METADATA_SERVER_DETECTION: 'assume-present',
    LOG_FORMAT: 'json',
    LOG_LEVEL: launcher.options.logLevel ?? 'info',
    ...wiring.otelEnv,
  };
}

const asHandle = async (start: () => Promise<ReadyProcess>): Promise<ComponentHandle> => {
  const started = await start();
  return { pid: started.child.pid ?? -1, stop: () => started.stop() };
};

/** The adapter instances behind their round-robin proxy, with the adapter's local timings. */
function startAdapters(
  launcher: Launcher,
  env: NodeJS.ProcessEnv,
  delivery: DeliveryMode,
): Promise<AdapterInstances> {
  const { options } = launcher;
  return startAdapterInstances({
    count: options.adapterInstances ?? 2,
    delivery,
    components: launcher.components,
    logFile: launcher.log,
    start: (port, logFile) =>
      asHandle(() =>
        startFunctionProcess({
          root: options.root,
          nodeArgs: launcher.watchdog,
          target: 'adapter',
          port,
          logFile,
          env: {
            ...env,
            RESYNC_INTERVAL: '30m',
            EXECUTION_TIMEOUT: `${(options.jobTimeoutSeconds ?? 120) + 30}s`,
            RETRY_BACKOFF_BASE: '2s',
            RETRY_BACKOFF_MAX: '30s',
            PERMANENT_FAILURE_RETRY_INTERVAL: '10m',
            STATUS_HEARTBEAT_INTERVAL: '1m',
            // Read at each (re)start: a relayout restarts the adapters, as a redeploy does.
            ...layoutEnv(launcher.layout.current),
            // Read at each (re)start too: a cluster without a pull secret in its spec uses it.
            ...defaultVersionEnv(options),
            ...options.adapterEnv,
          },
        }),
      ),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
}

/** The reporter on a port of its own, restartable on the same port: that port. */
async function startReporter(launcher: Launcher, env: NodeJS.ProcessEnv): Promise<number> {
  const { options } = launcher;
  const port = await freePort();
  const start = () =>
    startFunctionProcess({
      root: options.root,
      nodeArgs: launcher.watchdog,
      target: 'reporter',
      port,
      logFile: launcher.log('reporter'),
      env: { ...env, ...options.reporterEnv },
    });
  launcher.components.add('reporter', await asHandle(start), () => asHandle(start));
  options.onProgress?.('reporter', { endpoint: `http://127.0.0.1:${port}/` });
  return port;
}

/** Eventarc mode: the reporter too receives what Eventarc sends, through a one-target converter. */
async function startReporterConverter(
  launcher: Launcher,
  reporterPort: number,
): Promise<NonNullable<StackDescription['reporterConverter']>> {
  const logFile = launcher.log('reporter-converter');
  const converter = await startRoundRobinProxy({
    targets: [{ name: 'reporter', port: reporterPort }],
    logFile,
    delivery: 'eventarc',
  });
  launcher.components.add('reporter-converter', { stop: () => converter.close() });
  launcher.options.onProgress?.('reporter-converter', { endpoint: `${converter.endpoint}/` });
  return { endpoint: converter.endpoint, logFile };
}

/** Starts the adapter instances and the reporter as functions-framework processes. */
export async function startFunctions(
  launcher: Launcher,
  wiring: FunctionWiring,
  delivery: DeliveryMode,
): Promise<StartedFunctions> {
  const env = functionEnv(launcher, wiring);
  const adapters = await startAdapters(
    launcher,
    { ...env, ...wiring.launchEnv, GCE_METADATA_HOST: wiring.identities.adapter },
    delivery,
  );
  const reporterPort = await startReporter(launcher, {
    ...env,
    GCE_METADATA_HOST: wiring.identities.reporter,
  });
  const reporterConverter =
    delivery === 'eventarc' ? await startReporterConverter(launcher, reporterPort) : undefined;
  return {
    adapters,
    adapterUrl: adapters.description.proxy.endpoint,
    reporterUrl: reporterConverter?.endpoint ?? `http://127.0.0.1:${reporterPort}`,
    reporterConverter,
  };
}
