import type { RunningEmulator } from '../common/emulator';
import { DEV_TENANCY, startHyperFleetApiEmulator } from '../hyperfleet-api/server';
import { parseDurationMs } from '../../shared/config/durations';
import { createLogger } from '../../shared/logging/logger';
import { readTokenFile, type EmulatorArgs } from './emulator-args';
import { withTracing } from './emulator-tracing';
import { LOCAL_SIMULATED_ADAPTERS, localSimulatedAdapters } from './hyperfleet/simulated-adapters';
import { startHyperShift } from './hypershift/start-hypershift';
import { startSentinel } from './sentinel/start-sentinel';

// The HyperFleet side of `npm run emulators`: the API with this project's simulated adapters,
// Sentinel and the HyperShift simulator, each from its command-line options.

/**
 * The HyperFleet API: --required-adapters a,b,c; --simulate-adapters (validation, dns and placement report by themselves;
 * --management-clusters a,b: placement spreads clusters over these, as `data.managementCluster`);
 * --token-file FILE (or --token TOKEN=identity) turns JWT authentication on; --tenancy requires
 * the dev config's tenancy headers; --spec-schema gcp validates cluster specs (default any).
 * OTEL_* (the local stack sets them) turn on a SERVER span per request, as the API's middleware.
 */
export function startHyperFleetApiFromArgs(args: EmulatorArgs): Promise<RunningEmulator> {
  return withTracing(process.env, 'hyperfleet-api', undefined, () =>
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
              ? localSimulatedAdapters(
                  args.options['management-clusters'].split(','),
                  args.options['namespace-template'],
                )
              : LOCAL_SIMULATED_ADAPTERS,
          }
        : {}),
      ...(args.options.token
        ? { tokens: Object.fromEntries([args.options.token.split('=') as [string, string]]) }
        : {}),
    }),
  );
}

/**
 * Sentinel: --hyperfleet URL [--hyperfleet-token-file FILE] --topic projects/P/topics/T
 * [--poll-interval 1s --not-ready-interval 10s --ready-interval 30m]; needs PUBSUB_EMULATOR_HOST.
 */
export async function startSentinelFromArgs(args: EmulatorArgs): Promise<RunningEmulator> {
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
}

/**
 * The simulated HyperShift adapter (seed 004): --hyperfleet URL [--hyperfleet-token-file FILE]
 * --management-clusters-file FILE (JSON: name -> kubeconfig) --default-management-cluster NAME
 * [--poll-interval 1s].
 */
export function startHyperShiftFromArgs(args: EmulatorArgs): Promise<RunningEmulator> {
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
}
