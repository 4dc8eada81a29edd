#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { printReadyLine } from './common/emulator';
import { EMULATORS } from './registry';

const USAGE = `Usage: npm run emulators -- <name> [--port N] [--admin-port N] [--host H] [--data-dir DIR] [args]
Emulators: ${Object.keys(EMULATORS).join(', ')}
Prints one JSON line {"name","endpoint",...} when ready; runs until SIGINT or SIGTERM.`;

/** Starts one emulator in the foreground. */
async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: {
      port: { type: 'string' },
      'admin-port': { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean' },
      'required-adapters': { type: 'string' },
      'simulate-adapters': { type: 'boolean' },
      'management-clusters': { type: 'string' },
      'rbac-file': { type: 'string' },
      'management-clusters-file': { type: 'string' },
      'default-management-cluster': { type: 'string' },
      token: { type: 'string' },
      'token-file': { type: 'string' },
      tenancy: { type: 'boolean' },
      'spec-schema': { type: 'string' },
      config: { type: 'string' },
      'finished-topic': { type: 'string' },
      hyperfleet: { type: 'string' },
      'hyperfleet-token-file': { type: 'string' },
      topic: { type: 'string' },
      'poll-interval': { type: 'string' },
      'not-ready-interval': { type: 'string' },
      'ready-interval': { type: 'string' },
    },
  });
  const [name, ...rest] = positionals;
  const start = name ? EMULATORS[name] : undefined;
  if (values.help || !start) {
    process.stderr.write(`${name && !start ? `Unknown emulator "${name}".\n` : ''}${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const port = Number(values.port ?? 0);
  const adminPort = Number(values['admin-port'] ?? 0);
  if (!Number.isInteger(port) || port < 0 || !Number.isInteger(adminPort) || adminPort < 0) {
    process.stderr.write('--port and --admin-port must be whole numbers (0 picks a free port).\n');
    return 2;
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
