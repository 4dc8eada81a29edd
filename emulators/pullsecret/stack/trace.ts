#!/usr/bin/env node
// `npm run trace -- CLUSTER_ID [--trace TRACE_ID] [--list] [--json]`: draws a cluster's latest reconcile
// (one trace: Sentinel's publish, the adapter, the execution, the reporter, the HyperFleet API)
// from the local stack's trace store as a terminal waterfall. Exit codes as `npm run wait`.
import fs from 'node:fs';
import path from 'node:path';
import { parseFlags, UsageError } from '../../common/cli-flags';
import { listTracesOf, renderTraceList } from '../traces/trace-list';
import { findTrace, traceJson } from '../traces/trace-view';
import { renderWaterfall } from '../traces/waterfall';

const ROOT = path.resolve(__dirname, '../../../..');
const USAGE = `Usage: npm run -s trace -- CLUSTER_ID [--trace TRACE_ID] [--list] [--json] [--stack FILE]
  CLUSTER_ID        draws the cluster's latest reconcile: the newest trace that launched or ran an
                    execution for it, else the newest reporter status write, else the newest event
                    the adapter handled (skips included), else the newest trace that names it
  --list            prints the cluster's recent traces instead, newest first (time, trace id,
                    adapter decision, span count); with --json as JSON
  --trace TRACE_ID  draws that trace instead (32 hex digits; CLUSTER_ID may then be left out)
  --json            the spans in tree order as JSON (offsets and durations in ms, status, details)
  --stack FILE      the stack's stack.json (default .local/stack.json); without a running stack,
                    the traces a stopped one left in .local/traces
Exit codes: 0 drawn, 2 bad arguments, 3 no local stack or traces, or no trace for that cluster.`;
const EXIT = { found: 0, usage: 2, unavailable: 3 } as const;

function main(argv: readonly string[]): number {
  let clusterId: string | undefined;
  let traceId: string | undefined;
  let json: boolean;
  let list: boolean;
  let stackFile: string;
  try {
    const { values, positionals } = parseFlags(
      argv,
      {
        trace: { type: 'string' },
        json: { type: 'boolean', default: false },
        list: { type: 'boolean', default: false },
        stack: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      true,
    );
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return EXIT.found;
    }
    if (positionals.length > 1) throw new UsageError('give one CLUSTER_ID.');
    if (positionals.length === 0 && values.trace === undefined)
      throw new UsageError('give a CLUSTER_ID (or --trace TRACE_ID).');
    if (values.trace !== undefined && !/^[0-9a-fA-F]{32}$/.test(values.trace))
      throw new UsageError(`--trace "${values.trace}" is not a trace id: use 32 hex digits.`);
    if (values.list && positionals.length === 0) throw new UsageError('--list needs a CLUSTER_ID.');
    clusterId = positionals[0];
    list = values.list;
    traceId = values.trace;
    json = values.json;
    stackFile = values.stack ?? defaultStackFile();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`trace: ${error.message}\n${USAGE}\n`);
    return EXIT.usage;
  }

  const dir = tracesDir(stackFile);
  if (!dir) {
    process.stderr.write(
      `trace: no local stack (${stackFile} is missing) and no traces beside it; start one with npm start.\n`,
    );
    return EXIT.unavailable;
  }
  if (list && clusterId) {
    const summaries = listTracesOf(dir, clusterId);
    if (summaries.length === 0) {
      process.stderr.write(`trace: no trace names cluster ${clusterId} in ${dir} yet.\n`);
      return EXIT.unavailable;
    }
    process.stdout.write(
      json
        ? `${JSON.stringify(summaries, null, 2)}\n`
        : `${renderTraceList(summaries).join('\n')}\n`,
    );
    return EXIT.found;
  }
  const found = findTrace(dir, {
    ...(clusterId ? { clusterId } : {}),
    ...(traceId ? { traceId } : {}),
  });
  if (!found) {
    process.stderr.write(
      traceId
        ? `trace: no trace ${traceId} in ${dir}.\n`
        : `trace: no trace names cluster ${clusterId} in ${dir} yet (spans arrive when a component flushes; is the id right?).\n`,
    );
    return EXIT.unavailable;
  }
  process.stdout.write(
    json
      ? `${JSON.stringify(traceJson(found, clusterId), null, 2)}\n`
      : `${renderWaterfall(found.traceId, found.spans).join('\n')}\n`,
  );
  return EXIT.found;
}

/** The running stack's traces dir (stack.json), else the one a stopped stack left beside it. */
function tracesDir(stackFile: string): string | undefined {
  try {
    const stack = JSON.parse(fs.readFileSync(stackFile, 'utf8')) as { traces?: { dir?: unknown } };
    if (typeof stack.traces?.dir === 'string') return stack.traces.dir;
  } catch {
    // No running stack: look beside where its stack.json would be.
  }
  const left = path.join(path.dirname(stackFile), 'traces');
  return fs.existsSync(left) ? left : undefined;
}

/** `.local/stack.json` where the user ran npm (INIT_CWD), else in the repository. */
function defaultStackFile(): string {
  const here = path.join(process.env.INIT_CWD ?? process.cwd(), '.local', 'stack.json');
  return fs.existsSync(here) ? here : path.join(ROOT, '.local', 'stack.json');
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`trace failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
