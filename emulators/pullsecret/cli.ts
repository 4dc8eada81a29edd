#!/usr/bin/env node
import {
  DURATION_FORMAT,
  flagDurationMs,
  parseFlags,
  UsageError,
  USAGE_EXIT_CODE,
} from '../common/cli-flags';
import { printReadyLine } from '../common/emulator';
import { EMULATORS } from './registry';

const USAGE = `Usage: npm run emulators -- <name> [--port N] [--admin-port N] [--host H] [--data-dir DIR] [args]
Emulators: ${Object.keys(EMULATORS).join(', ')}
Durations (--poll-interval, --not-ready-interval, --ready-interval, --token-lifetime): ${DURATION_FORMAT}.
Prints one JSON line {"name","endpoint",...} when ready; runs until SIGINT or SIGTERM.
Exit codes: 0 stopped, 1 failed to start, 2 bad arguments.`;

const OPTIONS = {
  port: { type: 'string' },
  'admin-port': { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  'required-adapters': { type: 'string' },
  'simulate-adapters': { type: 'boolean' },
  'management-clusters': { type: 'string' },
  // hyperfleet-api: the simulated placement's namespace layout (default clusters-{id}).
  'namespace-template': { type: 'string' },
  'rbac-file': { type: 'string' },
  'iam-file': { type: 'string' },
  'gke-cluster': { type: 'string' },
  'google-token-info': { type: 'string' },
  // Secret Manager, Cloud Run, Cloud Tasks: calls without credentials are UNAUTHENTICATED (needs --iam-file).
  'enforce-iam': { type: 'boolean' },
  'serving-cert-dir': { type: 'string' },
  // secret-manager: the Pub/Sub emulator Secret.topics notifications are published to.
  pubsub: { type: 'string' },
  // metadata-server: more accounts, comma-separated, each on its own port.
  'also-serve': { type: 'string' },
  // cloud-tasks: where OAuthToken tasks' tokens are minted (the metadata server's mint route).
  'token-minter': { type: 'string' },
  // cloud-run, cloud-tasks: with --serving-cert-dir, keep the admin port plaintext.
  'plaintext-admin': { type: 'boolean' },
  'management-clusters-file': { type: 'string' },
  'default-management-cluster': { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  tenancy: { type: 'boolean' },
  'spec-schema': { type: 'string' },
  config: { type: 'string' },
  'finished-topic': { type: 'string' },
  // Cloud Run's "Job run requests per minute per region" (RunJob beyond it: RESOURCE_EXHAUSTED).
  'run-quota': { type: 'string' },
  hyperfleet: { type: 'string' },
  'hyperfleet-token-file': { type: 'string' },
  topic: { type: 'string' },
  'poll-interval': { type: 'string' },
  'not-ready-interval': { type: 'string' },
  'ready-interval': { type: 'string' },
  'service-account': { type: 'string' },
  'unique-id': { type: 'string' },
  'project-id': { type: 'string' },
  'project-number': { type: 'string' },
  region: { type: 'string' },
  'token-lifetime': { type: 'string' },
} as const;
/**
 * Durations (Sentinel's timings, the metadata server's token lifetime): checked here so a bad one
 * is a usage error, as `npm start --timeout` is.
 */
const DURATION_FLAGS = [
  'poll-interval',
  'not-ready-interval',
  'ready-interval',
  'token-lifetime',
] as const;

/** Starts one emulator in the foreground. */
async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseFlags(argv, OPTIONS, true);
    for (const flag of DURATION_FLAGS) {
      const value = parsed.values[flag];
      if (typeof value === 'string') flagDurationMs(flag, value);
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`npm run emulators: ${error.message}\n${USAGE}\n`);
    return USAGE_EXIT_CODE;
  }
  const { values, positionals } = parsed;
  const [name, ...rest] = positionals;
  const start = name ? EMULATORS[name] : undefined;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (!start) {
    process.stderr.write(`${name ? `Unknown emulator "${name}".\n` : ''}${USAGE}\n`);
    return USAGE_EXIT_CODE;
  }
  const port = Number(values.port ?? 0);
  const adminPort = Number(values['admin-port'] ?? 0);
  if (!Number.isInteger(port) || port < 0 || !Number.isInteger(adminPort) || adminPort < 0) {
    process.stderr.write('--port and --admin-port must be whole numbers (0 picks a free port).\n');
    return USAGE_EXIT_CODE;
  }
  const stringOptions = Object.fromEntries(
    Object.entries(values).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : value === true ? '' : undefined,
    ]),
  );
  const emulator = await start({
    host: typeof values.host === 'string' ? values.host : '127.0.0.1',
    port,
    adminPort,
    ...(typeof values['data-dir'] === 'string' ? { dataDir: values['data-dir'] } : {}),
    rest,
    options: stringOptions,
  });
  printReadyLine(emulator);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await emulator.stop();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `emulator failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
