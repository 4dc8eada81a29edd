#!/usr/bin/env node
// `npm start`: runs the whole system on this machine (see README, Quick start).
import fs from 'node:fs';
import path from 'node:path';
import type { HyperFleetClient } from '../../../shared/hyperfleet/client';
import { nullLogger } from '../../../shared/logging/null-logger';
import { UsageError, USAGE_EXIT_CODE } from '../../common/cli-flags';
import { loadLocalStackConfig } from './config';
import { ConditionWatcher } from './condition-watcher';
import { createDemoCluster } from './demo';
import { isReady, readHandoff } from './handoff';
import { managementClusterReaders } from '../../common/kube-admin';
import { DEFAULT_MANAGEMENT_CLUSTER } from './layout';
import { LogTailer } from './log-tailer';
import { PlacementSimulator } from './placement';
import { parseStartArgs, START_USAGE, type StartArgs } from './start-args';
import type { Stack } from './stack-description';
import { startStack } from './start-stack';
import { startConsole, type LocalConsole } from '../console/server';
import { convergedSummary } from './summary';
import { formatEvent, timelineEvents, type TimelineEvent } from './timeline';
import { localHyperFleetClient } from '../hyperfleet/local-hyperfleet-client';

const ROOT = path.resolve(__dirname, '../../../..');

async function main(): Promise<number> {
  // The orchestrator's own Google clients (Pub/Sub wiring) must not probe for a metadata server.
  process.env.METADATA_SERVER_DETECTION = 'none';
  let args: StartArgs;
  try {
    args = parseStartArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`npm start: ${error.message}\n${START_USAGE}\n`);
    return USAGE_EXIT_CODE;
  }
  if (args.help) {
    process.stdout.write(`${START_USAGE}\n`);
    return 0;
  }
  const config = loadLocalStackConfig(process.env);
  const json = args.json || !process.stdout.isTTY;
  const timeoutMs = args.timeoutMs;
  const workDir = path.resolve(args.workDir ?? path.join(ROOT, '.local'));
  const stateFile = path.join(workDir, 'stack.json');
  const started = Date.now();
  const say = (text: string, extra: Record<string, unknown> = {}) =>
    process.stdout.write(
      json
        ? `${JSON.stringify({ time: new Date().toISOString(), elapsed_ms: Date.now() - started, event: text, ...extra })}\n`
        : `${text}\n`,
    );

  refuseIfRunning(stateFile);
  fs.rmSync(path.join(workDir, 'logs'), { recursive: true, force: true });
  // Each run's traces start empty too: `npm run trace` shows this run's reconciles.
  fs.rmSync(path.join(workDir, 'traces'), { recursive: true, force: true });
  let stack: Stack | undefined = undefined;
  let localConsole: LocalConsole | undefined = undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('Stopping every component…');
    await localConsole?.close().catch(() => undefined);
    await stack?.stop();
    fs.rmSync(stateFile, { force: true });
    say('Stopped. Logs stay in ' + path.relative(process.cwd(), path.join(workDir, 'logs')));
    process.exit(code);
  };
  // A closed stdout (piped into `head`) or a crash stops everything instead of orphaning children.
  process.stdout.on('error', () => void stop(0));
  process.on('uncaughtException', (error) => {
    process.stderr.write(`npm start: ${error.message}\n`);
    void stop(1);
  });
  process.on('SIGINT', () => void stop(0));

  process.on('SIGTERM', () => void stop(0));

  say(
    `Starting the Pull Secret Adapter locally (logs: ${path.relative(process.cwd(), path.join(workDir, 'logs'))})`,
  );
  stack = await startStack({
    root: ROOT,
    workDir,
    adapterInstances: config.adapterInstances,
    delivery: config.delivery,
    onProgress: (component, info) =>
      say(`  started ${component.padEnd(15)} ${String(info.endpoint ?? '')}`, {
        component,
        endpoint: info.endpoint,
      }),
  });
  // The local console (emulators/pullsecret/console/): its URL goes to stack.json and the summary.
  try {
    localConsole = await startConsole(stack.description);
  } catch (error) {
    say(
      `Failed to start the local console: ${error instanceof Error ? error.message : String(error)}`,
      {
        outcome: 'error',
      },
    );
    await stop(1);
    return 1;
  }
  const d = { ...stack.description, console: { endpoint: localConsole.endpoint } };
  say(`  started ${'console'.padEnd(15)} ${localConsole.endpoint}`, {
    component: 'console',
    endpoint: localConsole.endpoint,
  });
  fs.writeFileSync(stateFile, `${JSON.stringify(d, null, 2)}\n`, { mode: 0o600 });
  if (stopping) return 0;
  try {
    return await run(d, {
      json,
      once: args.once,
      demo: args.demo,
      timeout: args.timeout,
      timeoutMs,
      started,
      say,
      stop,
      isStopping: () => stopping,
    });
  } catch (error) {
    say(`Failed: ${error instanceof Error ? error.message : String(error)}`, { outcome: 'error' });
    await stop(1);
    return 1;
  }
}

interface RunOptions {
  json: boolean;
  once: boolean;
  demo: boolean;
  timeout: string;
  timeoutMs: number;
  started: number;
  say: (text: string, extra?: Record<string, unknown>) => void;
  stop: (code: number) => Promise<void>;
  /** True once Ctrl-C or SIGTERM arrived: the components are going away, polls may fail. */
  isStopping: () => boolean;
}

/** The running part: timeline, demo cluster, convergence, summary. */
async function run(
  d: Stack['description'] & { console: { endpoint: string } },
  o: RunOptions,
): Promise<number> {
  const { json, timeoutMs, started, say, stop } = o;

  // A user creates the demo cluster (a tenant); placement is a system adapter.
  const tokenFile = d.env.HYPERFLEET_API_AUTH_TOKEN_PATH;
  const api = localHyperFleetClient(d.endpoints.hyperfleetApi, nullLogger, {
    caller: 'tenant',
    ...(tokenFile ? { tokenFile } : {}),
  });
  const system = localHyperFleetClient(d.endpoints.hyperfleetApi, nullLogger, {
    ...(tokenFile ? { tokenFile } : {}),
  });
  const kubes = managementClusterReaders(d.managementClusters);
  const names = new Map<string, string>();
  const tailer = new LogTailer(
    [
      path.join(d.logDir, 'sentinel.log'),
      path.join(d.logDir, 'hypershift.log'),
      ...d.adapters.instances.map((i) => i.logFile),
      path.join(d.logDir, 'reporter.log'),
    ],
    [path.join(d.logDir, 'jobs')],
  );
  const watcher = new ConditionWatcher();
  const print = (event: TimelineEvent) =>
    process.stdout.write(`${formatEvent(event, Date.now() - started, json, names)}\n`);
  const placement = new PlacementSimulator(system, kubes, DEFAULT_MANAGEMENT_CLUSTER, (id, place) =>
    print({
      component: 'placement',
      clusterId: id,
      text: `namespace ${place.namespace} created in management cluster ${place.managementCluster}`,
    }),
  );
  let clusters: Awaited<ReturnType<HyperFleetClient['listAllClusters']>> = [];
  // Changes seen in the API are printed one poll late: the component that caused one logs it just
  // after the API has it, and the timeline should read cause first.
  let heldBack: TimelineEvent[] = [];
  const flushHeldBack = () => {
    heldBack.forEach(print);
    heldBack = [];
  };
  const tick = async () => {
    clusters = await api.listAllClusters();
    for (const cluster of clusters) names.set(cluster.id, cluster.name);
    await placement.tick();
    for (const line of tailer.poll()) timelineEvents(line).forEach(print);
    flushHeldBack();
    heldBack = watcher.diff(clusters);
  };
  const loop = setInterval(
    () =>
      void tick().catch((error: unknown) => {
        if (!o.isStopping())
          say(`timeline: ${error instanceof Error ? error.message : String(error)}`);
      }),
    500,
  );

  say(
    `\nEverything is up. Endpoints and environment: ${path.relative(process.cwd(), path.join(d.workDir, 'stack.json'))}\nLocal console: ${d.console.endpoint}`,
    { console: d.console.endpoint },
  );
  if (!o.demo) {
    say('No demo cluster (--no-demo). Create clusters with the HyperFleet API; see README.');
    if (!o.once) return new Promise<number>(() => undefined);
    clearInterval(loop);
    await stop(0);
    return 0;
  }
  const demo = await createDemoCluster(api);
  names.set(demo.id, demo.name);
  say(
    `Created demo cluster ${demo.name} (${demo.id}) with a generated demo pull secret; watching it converge:\n`,
    { cluster_id: demo.id },
  );

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = clusters.find((c) => c.id === demo.id);
    // Ready: Reconciled=True (validation, dns, placement, pullsecret and hypershift Available at
    // this generation), and the handoff is there: our Secret and the HostedCluster naming it.
    const handoff = isReady(current)
      ? await readHandoff(system, kubes, demo, DEFAULT_MANAGEMENT_CLUSTER)
      : undefined;
    if (handoff?.secret && handoff.hostedCluster) {
      await new Promise((r) => setTimeout(r, 500));
      await tick();
      flushHeldBack();
      const elapsedMs = Date.now() - started;
      say(
        convergedSummary(d, { id: demo.id, ...handoff }, elapsedMs, {
          once: o.once,
          consoleUrl: d.console.endpoint,
        }),
        {
          outcome: 'converged',
          cluster_id: demo.id,
          elapsed_ms: elapsedMs,
          management_cluster: handoff.managementCluster,
        },
      );
      break;
    }
    if (Date.now() > deadline) {
      const statuses = await api.listStatuses(demo.id).catch(() => []);
      const state = (adapter: string) => {
        const available = statuses
          .find((s) => s.adapter === adapter)
          ?.conditions.find((c) => c.type === 'Available');
        return `${adapter} ${available ? `Available=${available.status} (${available.reason ?? ''}: ${available.message ?? ''})` : 'not reported yet'}`;
      };
      say(
        `\nThe demo cluster did not converge within ${o.timeout}: ${state('pullsecret')}; ${state('hypershift')}. See the logs in ${d.logDir}.`,
        { outcome: 'timeout' },
      );
      clearInterval(loop);
      await stop(1);
      return 1;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  if (o.once) {
    clearInterval(loop);
    await stop(0);
    return 0;
  }
  say(
    '\nStill running: create, patch and delete clusters and watch the system react. Ctrl-C stops everything.\n',
  );
  return new Promise<number>(() => undefined);
}

function refuseIfRunning(stateFile: string): void {
  if (!fs.existsSync(stateFile)) return;
  try {
    const { pid } = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { pid?: number };
    if (pid && pid !== process.pid) {
      process.kill(pid, 0);
      throw new Error(
        `A local stack is already running (pid ${pid}); its endpoints are in ${stateFile}. Stop it with Ctrl-C (or kill ${pid}) first.`,
      );
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') fs.rmSync(stateFile, { force: true });
    else throw error;
  }
}

main().then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `npm start failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
