// Runs the real adapter handler against the emulators (HTTP and gRPC), in its own process so that
// its peak RSS is the handler's: BENCH_IDS events (one per id, cycling) at BENCH_CONCURRENCY.
import fs from 'node:fs';
import { v2 } from '@google-cloud/run';
import { CloudRunExecutionReader } from '../functions/reporter/cloud-run-execution-reader';
import { CloudRunExecutionLookup } from '../functions/adapter/cloud-run-execution-lookup';
import { CloudRunJobLauncher } from '../functions/adapter/cloud-run-job-launcher';
import { createAdapterHandler } from '../functions/adapter/handle-event';
import { compilePreconditions, DEFAULT_PRECONDITIONS } from '../functions/adapter/preconditions';
import { reconcileEvent } from '../emulators/sentinel/sentinel';
import { googleClientOptions } from '../shared/gcp/client-options';
import { nullLogger } from '../shared/logging/null-logger';
import { percentile } from './stats';
import { localHyperFleetClient } from '../emulators/common/local-hyperfleet-client';

async function main(): Promise<void> {
  const ids = JSON.parse(fs.readFileSync(process.env.BENCH_IDS!, 'utf8')) as string[];
  const events = Number(process.env.BENCH_EVENTS ?? ids.length);
  const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 1);
  const cloudRunOptions = googleClientOptions(process.env.BENCH_CLOUD_RUN);
  const executions = new v2.ExecutionsClient(cloudRunOptions);
  const job = process.env.BENCH_JOB!;
  const retry = { attempts: 3, baseDelayMs: 100, maxDelayMs: 1000 };
  const handler = createAdapterHandler({
    hyperfleet: localHyperFleetClient(process.env.BENCH_HYPERFLEET!, nullLogger, {
      retryAttempts: 3,
      timeoutMs: 10_000,
    }),
    launcher: new CloudRunJobLauncher(new v2.JobsClient(cloudRunOptions), job, {
      timeoutMs: 10_000,
      logger: nullLogger,
    }),
    lookup: new CloudRunExecutionLookup(
      executions,
      new CloudRunExecutionReader(executions, { timeoutMs: 10_000, retry }),
      job,
      { timeoutMs: 10_000 },
    ),
    launchRetry: retry,
    preconditions: compilePreconditions(DEFAULT_PRECONDITIONS),
    settings: {
      resyncIntervalMs: 6 * 3600_000,
      executionTimeoutMs: 900_000,
      retryBackoffBaseMs: 30_000,
      retryBackoffMaxMs: 1_800_000,
      permanentFailureRetryMs: 3_600_000,
      heartbeatMs: 300_000,
      executionCheckAfterMs: 180_000,
      launchGraceMs: 190_000,
    },
    pullSecret: {
      specPath: 'spec.pullSecret.data',
      additionalSpecPath: 'spec.pullSecret.additional',
    },
    logger: nullLogger,
  });
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
