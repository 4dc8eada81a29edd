// Runs the adapter function as it ships (dist-bundle/adapter/index.js, configured from the
// environment like Cloud Run, BENCH_ADAPTER_ENV naming the emulators) against the emulators (HTTP
// and gRPC), in its own process so that its peak RSS is the function's: BENCH_EVENTS events (one
// per id of BENCH_IDS, cycling) at BENCH_CONCURRENCY.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { getFunction } from '@google-cloud/functions-framework/testing';
import { reconcileEvent } from '../emulators/pullsecret/sentinel/sentinel';
import { percentile } from './stats';

const BUNDLE = path.join(__dirname, '../../dist-bundle/adapter/index.mjs');

async function main(): Promise<void> {
  const ids = JSON.parse(fs.readFileSync(process.env.BENCH_IDS!, 'utf8')) as string[];
  const events = Number(process.env.BENCH_EVENTS ?? ids.length);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 1);
  Object.assign(process.env, {
    ...(JSON.parse(process.env.BENCH_ADAPTER_ENV ?? '{}') as Record<string, string>),
    HYPERFLEET_API_BASE_URL: process.env.BENCH_HYPERFLEET!,
    HYPERFLEET_API_RETRY_ATTEMPTS: '3',
    CLOUD_RUN_API_TIMEOUT: '10s',
    LOG_LEVEL: 'error',
  });
  await import(pathToFileURL(BUNDLE).href);
  const handler = getFunction('adapter') as (event: unknown) => Promise<void>;
  const envelope = (id: string) => ({
    type: 'google.cloud.pubsub.topic.v1.messagePublished',
    id: `bench-${id}`,
    source: '//pubsub.googleapis.com/projects/demo-bench/topics/hyperfleet-system-clusters',
    specversion: '1.0',
    data: {
      message: {
        data: Buffer.from(JSON.stringify(reconcileEvent({ id, generation: 1 }))).toString('base64'),
        messageId: id,
      },
    },
  });
  // Warm-up outside the measurement (opens the HTTP connection): a cluster that does not exist.
  await handler(envelope('warm-up-cluster-that-does-not-exist'));
  const latencies: number[] = [];

  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < events) {
        const id = ids[next++ % ids.length]!;
        const t = process.hrtime.bigint();
        await handler(envelope(id));
        latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  process.stdout.write(
    `${JSON.stringify({ events, seconds, eventsPerSecond: events / seconds, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) })}\n`,
  );
  process.exit(0);
}

void main();
