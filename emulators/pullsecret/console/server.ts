import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PubSub } from '@google-cloud/pubsub';
import { v2 } from '@google-cloud/run';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { CloudTasksClient } from '../../../shared/gcp/lazy/cloud-tasks';
import { launchQueueState } from '../../../functions/fleet/queue/queue-control';
import { operatorAccess, operatorClientOptions } from '../stack/operator-credentials';
import { localStackClients } from '../hyperfleet/local-hyperfleet-client';
import { KubeReader } from '../../common/kube-admin';
import { findTrace, traceJson } from '../traces/trace-view';
import { ConsoleActions, FAULT_PRESETS, type FaultPreset } from './actions';
import { DeadLetterWatcher } from './dead-letters';
import { consolePage } from './page';
import { newConsoleToken, refusal } from './request-guard';
import { takeSnapshot } from './snapshot';
import { managementClusters, stackViewSchema } from './stack-view';

export interface LocalConsole {
  readonly endpoint: string;
  close(): Promise<void>;
}

/**
 * The local console: one static page and a small JSON API over the stack's own APIs (HyperFleet,
 * Cloud Run, Secret Manager, the Kubernetes emulators, Pub/Sub dead letters, the emulators' fault
 * rules). Binds to 127.0.0.1 only, answers only to its own Host, and takes an action (POST, DELETE)
 * only from its own page: same Origin and this start's token (request-guard.ts).
 */
export async function startConsole(description: unknown, port = 0): Promise<LocalConsole> {
  const stack = stackViewSchema.parse(description);
  const { tenant, system } = localStackClients(stack);
  const kube = Object.fromEntries(
    Object.entries(managementClusters(stack)).map(([name, file]) => [name, new KubeReader(file)]),
  );
  // As the operator: the stack's Secret Manager refuses calls without credentials.
  const secretManager = new SecretManagerServiceClient(
    operatorClientOptions(operatorAccess(stack, stack.endpoints.secretManager)),
  );
  const executions = new v2.ExecutionsClient(
    operatorClientOptions(operatorAccess(stack, stack.endpoints.cloudRun)),
  );
  const pubsub = new PubSub({
    projectId: stack.project,
    apiEndpoint: stack.endpoints.pubsub,
    emulatorMode: true,
  });
  const deadLetters = new DeadLetterWatcher(pubsub);
  await deadLetters.start(
    Object.values(stack.subscriptions).flatMap((s) =>
      s.deadLetterTopic ? [s.deadLetterTopic] : [],
    ),
  );
  // The fleet panel's queue state, read as `fleet report` reads it (GetQueue, as the operator).
  const queue = stack.launchQueue;
  const tasks =
    queue && stack.endpoints.cloudTasks
      ? new CloudTasksClient(
          operatorClientOptions(operatorAccess(stack, stack.endpoints.cloudTasks)),
        )
      : undefined;
  const actions = new ConsoleActions(stack, tenant, kube);
  const consoleToken = newConsoleToken();
  const page = consolePage(consoleToken);

  const snapshot = () =>
    takeSnapshot({
      tenant,
      system,
      secretManager,
      executions,
      job: stack.job,
      kube,
      faults: () => actions.faults(),
      deadLetters: () => deadLetters.list(),
      ...(queue && tasks
        ? {
            launchQueue: async () => ({ name: queue, state: await launchQueueState(tasks, queue) }),
          }
        : {}),
    });

  const routes: {
    method: string;
    path: RegExp;
    run: (m: string[], body: unknown) => Promise<unknown>;
  }[] = [
    { method: 'GET', path: /^\/api\/state$/, run: () => snapshot() },
    { method: 'POST', path: /^\/api\/clusters$/, run: () => actions.createCluster() },
    {
      method: 'POST',
      path: /^\/api\/clusters\/([^/]+)\/pull-secret$/,
      run: (m) => actions.changePullSecret(m[1]!),
    },
    {
      method: 'DELETE',
      path: /^\/api\/clusters\/([^/]+)$/,
      run: async (m) => actions.deleteCluster(m[1]!),
    },
    {
      method: 'POST',
      path: /^\/api\/clusters\/([^/]+)\/adapters\/([a-z0-9-]+)\/(hold|release)$/,
      run: (m) => actions.holdAdapter(m[1]!, m[2]!, m[3] === 'hold'),
    },
    {
      method: 'POST',
      path: /^\/api\/faults\/([a-z0-9-]+)$/,
      run: async (m) => {
        if (!(m[1]! in FAULT_PRESETS)) throw new Error(`unknown fault ${m[1]}`);
        await actions.injectFault(m[1] as FaultPreset);
      },
    },
    { method: 'DELETE', path: /^\/api\/faults$/, run: () => actions.clearFaults() },
    { method: 'GET', path: /^\/api\/fault-presets$/, run: () => Promise.resolve(FAULT_PRESETS) },
    {
      // The cluster's latest reconcile as waterfall rows (names, timings, decision; no attributes).
      method: 'GET',
      path: /^\/api\/clusters\/([^/]+)\/trace$/,
      run: (m) => {
        if (!stack.traces)
          throw new Error('this stack records no traces (stack.json has no traces)');
        const found = findTrace(stack.traces.dir, { clusterId: m[1]! });
        return Promise.resolve(found ? traceJson(found, m[1]) : { clusterId: m[1], spans: [] });
      },
    },
  ];

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://console');
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, {
        'content-type': type,
        'cache-control': 'no-store',
        // No framing by another page (a click on a framed console would be an action of its own).
        'x-frame-options': 'DENY',
        'content-security-policy': "frame-ancestors 'none'",
      });
      res.end(body);
    };
    const refused = refusal(req, consoleToken);
    if (refused) {
      req.resume();
      send(403, 'application/json', JSON.stringify({ error: refused }));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/') {
      send(200, 'text/html; charset=utf-8', page);
      return;
    }
    const route = routes.find((r) => r.method === req.method && r.path.test(url.pathname));
    if (!route) {
      send(
        404,
        'application/json',
        JSON.stringify({ error: `no route ${req.method} ${url.pathname}` }),
      );
      return;
    }
    req.resume();
    req.on('end', () => {
      route.run(route.path.exec(url.pathname)!.map(decodeURIComponent), undefined).then(
        (result) => send(200, 'application/json', JSON.stringify(result ?? { ok: true })),
        (error: unknown) =>
          send(
            502,
            'application/json',
            JSON.stringify({ error: error instanceof Error ? error.message : String(error) }),
          ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    endpoint,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deadLetters.close().catch(() => undefined);
      await Promise.all([
        secretManager.close(),
        executions.close(),
        pubsub.close(),
        tasks?.close(),
      ]).catch(() => undefined);
    },
  };
}
