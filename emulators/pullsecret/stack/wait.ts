#!/usr/bin/env node
// `npm run wait -- CLUSTER_ID [--condition PullsecretSuccessful] [--status True] [--timeout 2m]`:
// waits until a cluster of the running local stack has a condition at its current generation (or
// is gone, with --deleted). For scripts and the "Try it" in docs/local-stack.md: exit codes say what happened.
import fs from 'node:fs';
import path from 'node:path';
import { nullLogger } from '../../../shared/logging/null-logger';
import { DURATION_FORMAT, flagDurationMs, parseFlags, UsageError } from '../../common/cli-flags';
import { localHyperFleetClient } from '../hyperfleet/local-hyperfleet-client';
import { checkWait, type WaitTarget } from './wait-condition';

const ROOT = path.resolve(__dirname, '../../../..');
const USAGE = `Usage: npm run -s wait -- CLUSTER_ID [--condition TYPE] [--status True|False] [--timeout 2m] [--deleted] [--stack FILE]
  --condition TYPE  a cluster condition, e.g. PullsecretSuccessful (default), Reconciled
  --status S        the status to wait for (default True), at the cluster's current generation
  --deleted         wait until the cluster is hard-deleted instead
  --timeout D       give up after D (default 2m); D is ${DURATION_FORMAT}
  --stack FILE      the stack's stack.json (default .local/stack.json)
Exit codes: 0 reached, 1 timed out (prints the last state) or failed, 2 bad arguments, 3 no running stack or no such cluster.`;
const EXIT = { reached: 0, timeout: 1, usage: 2, unavailable: 3 } as const;

async function main(argv: readonly string[]): Promise<number> {
  let id: string;
  let target: WaitTarget;
  let timeoutMs: number;
  let stackFile: string;
  try {
    const { values, positionals } = parseFlags(
      argv,
      {
        condition: { type: 'string', default: 'PullsecretSuccessful' },
        status: { type: 'string', default: 'True' },
        deleted: { type: 'boolean', default: false },
        timeout: { type: 'string', default: '2m' },
        stack: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      true,
    );
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return EXIT.reached;
    }
    if (positionals.length !== 1) throw new UsageError('give exactly one CLUSTER_ID.');
    if (!['True', 'False', 'Unknown'].includes(values.status))
      throw new UsageError(`--status "${values.status}" must be True, False or Unknown.`);
    id = positionals[0]!;
    target = values.deleted
      ? { kind: 'deleted' }
      : { kind: 'condition', type: values.condition, status: values.status };
    timeoutMs = flagDurationMs('timeout', values.timeout);
    stackFile = values.stack ?? defaultStackFile();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`wait: ${error.message}\n${USAGE}\n`);
    return EXIT.usage;
  }

  let stack: { endpoints: { hyperfleetApi: string }; env: Record<string, string> };
  try {
    stack = JSON.parse(fs.readFileSync(stackFile, 'utf8')) as typeof stack;
  } catch {
    process.stderr.write(
      `wait: no running local stack (${stackFile} is missing); start one with npm start.\n`,
    );
    return EXIT.unavailable;
  }
  const tokenFile = stack.env.HYPERFLEET_API_AUTH_TOKEN_PATH;
  const api = localHyperFleetClient(stack.endpoints.hyperfleetApi, nullLogger, {
    caller: 'tenant',
    retryAttempts: 1,
    ...(tokenFile ? { tokenFile } : {}),
  });

  const started = Date.now();
  const what = target.kind === 'deleted' ? 'deleted' : `${target.type}=${target.status}`;
  let state = 'not read yet';
  for (let first = true; ; first = false) {
    let cluster;
    try {
      cluster = await api.findCluster(id);
    } catch (error) {
      process.stderr.write(
        `wait: the HyperFleet API at ${stack.endpoints.hyperfleetApi} did not answer (${error instanceof Error ? error.message : String(error)}); is the stack still running?\n`,
      );
      return EXIT.unavailable;
    }
    if (first && !cluster && target.kind !== 'deleted') {
      process.stderr.write(`wait: no cluster ${id} in the local stack.\n`);
      return EXIT.unavailable;
    }
    const check = checkWait(cluster, target);
    state = check.state;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (check.met) {
      process.stdout.write(`${id}: ${state} (after ${seconds} s)\n`);
      return EXIT.reached;
    }
    if (Date.now() - started >= timeoutMs) {
      process.stderr.write(`wait: ${id} not ${what} after ${seconds} s; last state: ${state}\n`);
      return EXIT.timeout;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** `.local/stack.json` where the user ran npm (INIT_CWD), else in the repository. */
function defaultStackFile(): string {
  const here = path.join(process.env.INIT_CWD ?? process.cwd(), '.local', 'stack.json');
  return fs.existsSync(here) ? here : path.join(ROOT, '.local', 'stack.json');
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    process.stderr.write(
      `wait failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
