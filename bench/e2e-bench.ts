import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDemoCluster } from '../emulators/pullsecret/stack/demo';
import { managementClusterReaders } from '../emulators/common/kube-admin';
import { DEFAULT_MANAGEMENT_CLUSTER } from '../emulators/pullsecret/stack/layout';
import { PlacementSimulator } from '../emulators/pullsecret/stack/placement';
import { startStack } from '../emulators/pullsecret/stack/start-stack';
import { nullLogger } from '../shared/logging/null-logger';
import { percentile, round } from './stats';
import { localHyperFleetClient } from '../emulators/pullsecret/hyperfleet/local-hyperfleet-client';

export interface EndToEndFigures {
  readonly clusters: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly maxMs: number;
  readonly sentinel: string;
}

/**
 * Time from cluster creation to PullsecretSuccessful=True on the local stack (every component a
 * separate process, Pub/Sub between them), one cluster at a time.
 */
export async function benchEndToEnd(clusters: number): Promise<EndToEndFigures> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-bench-'));
  const sentinel = { pollInterval: '1s', notReadyInterval: '3s', readyInterval: '60s' };
  const stack = await startStack({ root: path.join(__dirname, '../..'), workDir, sentinel });
  const d = stack.description;
  const tokenOption = d.env.HYPERFLEET_API_AUTH_TOKEN_PATH
    ? { tokenFile: d.env.HYPERFLEET_API_AUTH_TOKEN_PATH }
    : {};
  const api = localHyperFleetClient(d.endpoints.hyperfleetApi, nullLogger, {
    caller: 'tenant',
    ...tokenOption,
  });
  const placement = new PlacementSimulator(
    localHyperFleetClient(d.endpoints.hyperfleetApi, nullLogger, tokenOption),
    managementClusterReaders(d.managementClusters),
    DEFAULT_MANAGEMENT_CLUSTER,
  );
  let running = true;
  const loop = (async () => {
    while (running) {
      await placement.tick().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const times: number[] = [];
  try {
    for (let i = 0; i < clusters; i++) {
      const started = Date.now();
      const cluster = await createDemoCluster(api, `bench-e2e-${i}`);
      for (;;) {
        const condition = (await api.findCluster(cluster.id))?.status?.conditions.find(
          (c) => c.type === 'PullsecretSuccessful',
        );
        if (condition?.status === 'True') break;
        if (Date.now() - started > 60_000)
          throw new Error(
            `cluster ${cluster.id} did not converge within 60 s; logs in ${d.logDir}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
      times.push(Date.now() - started);
    }
  } finally {
    running = false;
    await loop;
    await stack.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  return {
    clusters,
    p50Ms: round(percentile(times, 50)),
    p90Ms: round(percentile(times, 90)),
    maxMs: round(Math.max(...times)),
    sentinel: `poll ${sentinel.pollInterval}, not-ready re-send ${sentinel.notReadyInterval}`,
  };
}
