import type { SpanContext } from '@opentelemetry/api';
import { ConfigError } from '../../../shared/errors';
import { createLogger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import { startTracing } from '../../../shared/tracing/start';
import { loadJobConfig, type JobConfig } from '../config/config';
import { refuseRedirects } from '../config/redirect-guard';
import { endOpenSpans, withJobRunSpan } from '../telemetry/job-trace';
import type { ResultPublisher } from '../telemetry/result-publisher';
import { traceFieldsFromTraceparent, traceFieldsOf } from '../telemetry/result-trace-fields';
import {
  SIGNAL_EXIT_CODES,
  TERMINATED_REASON,
  TERMINATION_FLUSH_MS,
  boundedWait,
  terminatedResult,
  type TerminationSignal,
} from '../telemetry/termination';
import { jobDependencies, resultPublisher, secretManagerClient } from './job-clients';
import { configFailure, resultWasWritten, writeResult } from './result-line';
import { runPullSecretJob } from './run-pull-secret-job';
import { START_REPORT_WAIT_MS, startedMessage, writesAfter } from './start-report';

/** What the wiring shares between the run and a termination signal. */
interface Wired {
  readonly config: JobConfig;
  readonly dryRun: boolean;
  readonly logger: ReturnType<typeof createLogger>;
  readonly redactor: SecretRedactor;
  readonly stopTracing: () => Promise<void>;
  /** The job.run span, once it started: the result line is filed under it. */
  jobRun?: SpanContext;
}

/**
 * `pull-secret run-job pull-secret`: loads the configuration (a refused one still prints a result
 * line), starts logging and tracing, runs the job, publishes and prints its result. Returns the
 * exit code.
 */
export async function runJobCommand(
  env: NodeJS.ProcessEnv,
  dryRun: boolean,
  redactor: SecretRedactor,
): Promise<number> {
  let config;
  try {
    // First, before any client exists: on Cloud Run, a variable that would redirect the job.
    refuseRedirects(env, process.argv0);
    config = loadJobConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const result = configFailure(error, env, dryRun);
    process.stderr.write(`${error.message}\n`);
    // No span yet: the line names the adapter's launch span when TRACEPARENT is a valid one.
    return writeResult(
      result,
      redactor,
      traceFieldsFromTraceparent(env.GOOGLE_CLOUD_PROJECT, env.TRACEPARENT),
    );
  }
  const logger = createLogger({
    component: 'pullsecret-job',
    level: config.logLevel,
    format: config.logFormat,
    // Logs and spans are filed in the project the job runs in, not the one it writes secrets to.
    projectId: config.platformProjectId ?? config.projectId,
    redactor,
  });
  if (config.ignoredTraceparent)
    logger.warn(
      'TRACEPARENT is not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>); ignored: this execution starts a new trace',
      { operation: 'start' },
    );
  // Bounded (the SDK's export timeout) and called on every path out, a crash included.
  const tracing = await startTracing(config.tracing, {
    ...(config.platformProjectId ? { projectId: config.platformProjectId } : {}),
    logger,
  });
  let tracingStopped: Promise<void> | undefined;
  const stopTracing = () => (tracingStopped ??= tracing.shutdown());
  const wired: Wired = { config, dryRun, logger, redactor, stopTracing };
  onTerminationSignal((signal) => terminate(wired, signal));
  return runAndReport(wired);
}

async function runAndReport(wired: Wired): Promise<number> {
  const { config, dryRun, logger, redactor } = wired;
  const client = secretManagerClient(config);
  // One Pub/Sub client for the run's two messages: created at the start, while the first reads
  // are in flight, when there is a start to report; else only for the result.
  const topic = config.resultsTopic && !dryRun ? config.resultsTopic : undefined;
  let opened: Promise<ResultPublisher> | undefined;
  const publisher = () =>
    (opened ??= resultPublisher(topic!, { logger, redactor, timeoutMs: config.apiTimeoutMs }));
  try {
    const deps = jobDependencies(config, client, logger, redactor);
    const result = await withJobRunSpan(
      config,
      async () => {
        const started = topic ? startedMessage(config, dryRun, new Date(), logger) : undefined;
        // Never rejects (the publisher logs its own failures); writes wait for it, reads do not.
        const startReport = started
          ? publisher()
              .then((p) => p.publishStarted(started))
              .catch(() => false)
          : undefined;
        const result = await runPullSecretJob(
          config,
          startReport ? writesAfter(startReport, deps) : deps,
          { dryRun },
        );
        // The start report goes first even when the run wrote nothing (a refused pull secret).
        if (startReport) await boundedWait(startReport, START_REPORT_WAIT_MS);
        if (topic) {
          const results = await publisher();
          await results.publish(result);
          opened = undefined;
          await results.close();
        }
        return result;
      },
      (context) => {
        wired.jobRun = context;
      },
    );
    await wired.stopTracing();
    await logger.close();
    return writeResult(result, redactor, traceFieldsOf(traceProject(config), wired.jobRun));
  } finally {
    await wired.stopTracing();
    await client.close();
    if (opened) await (await opened.catch(() => undefined))?.close();
  }
}

const traceProject = (config: JobConfig) => config.platformProjectId ?? config.projectId;

/**
 * Cloud Run's task timeout (or a cancel): the spans of this execution are the ones operators need
 * most, so end them as failed and give their export a bounded moment (SIGKILL follows 10 s after
 * SIGTERM). No result is published: the reporter reads a killed execution's failure from Cloud Run
 * itself, and the interrupted phase may still have landed its write.
 */
async function terminate(wired: Wired, signal: TerminationSignal): Promise<void> {
  const { config, dryRun, logger, redactor } = wired;
  endOpenSpans(TERMINATED_REASON);
  logger.error(`Stopped by ${signal} before the job finished`, {
    operation: 'terminate',
    reason: TERMINATED_REASON,
  });
  await boundedWait(wired.stopTracing(), TERMINATION_FLUSH_MS);
  const base = {
    operation: config.operation,
    dry_run: dryRun,
    cluster_id: config.clusterId,
    ...(config.generation !== undefined ? { generation: config.generation } : {}),
    ...(config.execution ? { execution: config.execution } : {}),
  };
  if (!resultWasWritten())
    writeResult(
      terminatedResult(base, signal, new Date()),
      redactor,
      traceFieldsOf(traceProject(config), wired.jobRun),
    );
  process.exit(SIGNAL_EXIT_CODES[signal]);
}

/** Runs `handler` once on the first SIGTERM or SIGINT; the handler exits the process. */
function onTerminationSignal(handler: (signal: TerminationSignal) => Promise<void>): void {
  let handled = false;
  for (const signal of Object.keys(SIGNAL_EXIT_CODES) as TerminationSignal[])
    process.on(signal, () => {
      if (handled) return;
      handled = true;
      void handler(signal);
    });
}
