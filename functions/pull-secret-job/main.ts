#!/usr/bin/env node
// Entry point of the Cloud Run Job and of the `pull-secret` CLI (compatible with the original Go
// job: `pull-secret run-job pull-secret [--dry-run]`, `pull-secret version`). Wiring only.
import { SecretManagerServiceClient } from '../../shared/gcp/secret-manager-client';
import type { GoogleAuth } from 'google-auth-library';
import { ConfigError } from '../../shared/errors';
import { googleClientOptions } from '../../shared/gcp/client-options';
import { HyperFleetClient } from '../../shared/hyperfleet/client';
import { authProviderFor } from '../../shared/hyperfleet/config';
import { EXIT_CODES, RESULT_LINE_KEY, type JobResult } from '../../shared/job-result';
import { installCrashHandlers } from '../../shared/logging/crash-handlers';
import { createLogger, type Logger } from '../../shared/logging/logger';
import { redactStream } from '../../shared/logging/redacting-output';
import { SecretRedactor } from '../../shared/logging/secret-redactor';
import { startTracing } from '../../shared/tracing/start';
import { loadJobConfig } from './config/config';
import { GoogleSecretStore } from './secret-manager/google-secret-store';
import { customerProjectPermissionFix } from './run/permission-fix';
import { PubSubResultPublisher } from './telemetry/pubsub-result-publisher';
import { refuseRedirects } from './config/redirect-guard';
import { createCoreV1Api, KUBERNETES_TOKEN_SCOPES } from './kubernetes/kubernetes-access';
import { KubernetesClusterSecrets } from './kubernetes/kubernetes-cluster-secrets';
import { describeFailure, exitCodeFor } from './run/job-outcome';
import { withJobRunSpan } from './telemetry/job-trace';
import { endOpenSpans } from './telemetry/open-spans';
import {
  traceFieldsFromTraceparent,
  traceFieldsOf,
  type TraceLogFields,
} from './telemetry/result-trace-fields';
import { runPullSecretJob } from './run/run-job';
import {
  SIGNAL_EXIT_CODES,
  TERMINATED_REASON,
  TERMINATION_FLUSH_MS,
  boundedWait,
  terminatedResult,
  type TerminationSignal,
} from './telemetry/termination';
import { projectVersion } from './config/version';
import type { SpanContext } from '@opentelemetry/api';

const USAGE = `Usage:
  pull-secret run-job pull-secret [--dry-run]   store the pull secret (configuration from the environment)
  pull-secret doctor [--all-projects | --project P]... [--help]
                                                check the deployment end to end, as the job
  pull-secret version                           print the version
  pull-secret --help                            print this help
See README.md, section "Pull secret job", for the environment variables and exit codes, and section "pull-secret doctor" for the doctor.`;

/** Every secret the run learns; stdout, stderr, the log and the published result all pass through it. */
const redactor = new SecretRedactor();
redactStream(process.stdout, redactor);
redactStream(process.stderr, redactor);
// Node's crash printer writes to stderr past redactStream: a crash prints one redacted line instead.
installCrashHandlers({ component: 'pullsecret-job', redactor, exitCode: EXIT_CODES.internal });

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, jobName, ...flags] = argv;
  // Asking for help is not a configuration error: exit 0 with the usage on stdout.
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'version' || command === '--version') {
    process.stdout.write(`pull-secret ${projectVersion()}\n`);
    return 0;
  }
  if (command === 'doctor') {
    // Its own chunk (a dynamic import): a run of the job never loads the doctor.
    const { doctorMain } = await import('./doctor/doctor-main.js');
    return doctorMain(argv.slice(1), env, {
      argv0: process.argv0,
      redactor,
      token: googleAccessToken,
    });
  }
  const unknownFlags = flags.filter((flag) => flag !== '--dry-run');
  if (command !== 'run-job' || jobName !== 'pull-secret' || unknownFlags.length > 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const dryRun = flags.includes('--dry-run');
  if (env.PULL_SECRET_DATA) redactor.registerPullSecret(env.PULL_SECRET_DATA);

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
  const client = new SecretManagerServiceClient(
    googleClientOptions(config.secretManagerEmulatorHost, config.projectId),
  );
  // Bounded (the SDK's export timeout) and called on every path out, a crash included.
  const tracing = await startTracing(config.tracing, {
    ...(config.platformProjectId ? { projectId: config.platformProjectId } : {}),
    logger,
  });
  let tracingStopped: Promise<void> | undefined;
  const stopTracing = () => (tracingStopped ??= tracing.shutdown());
  const traceProject = config.platformProjectId ?? config.projectId;
  let jobRun: SpanContext | undefined;
  onTerminationSignal(async (signal) => {
    // Cloud Run's task timeout (or a cancel): the spans of this execution are the ones operators
    // need most, so end them as failed and give their export a bounded moment (SIGKILL follows
    // 10 s after SIGTERM). No result is published: the reporter reads a killed execution's
    // failure from Cloud Run itself, and the interrupted phase may still have landed its write.
    endOpenSpans(TERMINATED_REASON);
    logger.error(`Stopped by ${signal} before the job finished`, {
      operation: 'terminate',
      reason: TERMINATED_REASON,
    });
    await boundedWait(stopTracing(), TERMINATION_FLUSH_MS);
    const base = {
      operation: config.operation,
      dry_run: dryRun,
      cluster_id: config.clusterId,
      ...(config.generation !== undefined ? { generation: config.generation } : {}),
      ...(config.execution ? { execution: config.execution } : {}),
    };
    if (!resultWritten)
      writeResult(
        terminatedResult(base, signal, new Date()),
        redactor,
        traceFieldsOf(traceProject, jobRun),
      );
    process.exit(SIGNAL_EXIT_CODES[signal]);
  });
  try {
    const secretStore = new GoogleSecretStore(client, {
      timeoutMs: config.apiTimeoutMs,
      retry: config.retry,
      logger,
      identityHint: "the job's service account",
      permissionFix: (resource) => customerProjectPermissionFix(resource, config.projectId),
    });
    const kubernetes = config.kubernetes;
    const clusterSecrets = async (cluster: string) => {
      const access = kubernetes?.clusters[cluster];
      if (!kubernetes || !access)
        throw new Error(`management cluster ${cluster} is not configured`);
      const { api, identity } = await createCoreV1Api(
        access,
        googleAccessToken,
        `management cluster "${cluster}" (MANAGEMENT_CLUSTERS or KUBECONFIG)`,
      );
      return new KubernetesClusterSecrets(api, {
        timeoutMs: kubernetes.timeoutMs,
        retry: config.retry,
        logger,
        identityHint: `${identity} on management cluster ${cluster}`,
      });
    };
    const hyperfleet = config.hyperfleet
      ? new HyperFleetClient(config.hyperfleet, {
          auth: authProviderFor(config.hyperfleet.auth),
          logger,
          userAgent: 'pullsecret-job',
        })
      : undefined;
    const result = await withJobRunSpan(
      config,
      async () => {
        const result = await runPullSecretJob(
          config,
          { secretStore, clusterSecrets, logger, redactor, ...(hyperfleet ? { hyperfleet } : {}) },
          { dryRun },
        );
        if (config.resultsTopic && !dryRun)
          await publishResult(config.resultsTopic, result, {
            logger,
            redactor,
            timeoutMs: config.apiTimeoutMs,
          });
        return result;
      },
      (context) => {
        jobRun = context;
      },
    );
    await stopTracing();
    await logger.close();
    return writeResult(result, redactor, traceFieldsOf(traceProject, jobRun));
  } finally {
    await stopTracing();
    await client.close();
  }
}

/** Publishes the result for the reporter; the Pub/Sub client loads only here (direct runs never pay). */
async function publishResult(
  topic: string,
  result: JobResult,
  options: { logger: Logger; redactor: SecretRedactor; timeoutMs: number },
): Promise<void> {
  const { PubSub } = await import('../../shared/gcp/lazy/pubsub.js');
  const publisher = new PubSubResultPublisher(
    new PubSub({ projectId: topic.split('/')[1]! }),
    topic,
    {
      retry: { attempts: 4, baseDelayMs: 500, maxDelayMs: 5000 },
      ...options,
    },
  );
  await publisher.publish(result);
  await publisher.close();
}

/**
 * The job's Google access token for GKE / Connect Gateway, cached and refreshed by
 * google-auth-library. Both scopes matter: GKE names the caller by its email only when the token
 * carries userinfo.email (otherwise by the account's numeric unique id, which no RBAC subject
 * names), as gke-gcloud-auth-plugin asks for them (kubernetes/cloud-provider-gcp,
 * cmd/gke-gcloud-auth-plugin/default_credentials_token_provider.go).
 */
async function googleAccessToken(): Promise<string> {
  const { GoogleAuth } = await import('../../shared/gcp/lazy/google-auth.js');
  authClient ??= new GoogleAuth({ scopes: [...KUBERNETES_TOKEN_SCOPES] });
  const token = await authClient.getAccessToken();
  if (!token) throw new Error('Application Default Credentials returned no access token');
  return token;
}
let authClient: GoogleAuth | undefined;

function configFailure(error: ConfigError, env: NodeJS.ProcessEnv, dryRun: boolean): JobResult {
  return {
    outcome: 'failed',
    operation: env.OPERATION === 'delete' ? 'delete' : 'apply',
    dry_run: dryRun,
    cluster_id: env.CLUSTER_ID ?? '',
    phases: [],
    ...describeFailure(error),
    durations_ms: {},
    finished_at: new Date().toISOString(),
  };
}

/** Set once the result line is out: a termination signal after it must not write a second one. */
let resultWritten = false;

/**
 * Prints the result as the last output line (also a valid Cloud Logging entry, filed under the
 * execution's trace) and returns the exit code.
 */
function writeResult(
  result: JobResult,
  redactor: SecretRedactor,
  trace: TraceLogFields | Record<string, never>,
): number {
  const line = {
    severity: result.outcome === 'failed' ? 'ERROR' : 'INFO',
    message: `Pull secret job ${result.outcome}: ${result.reason}`,
    ...trace,
    [RESULT_LINE_KEY]: redactor.redact(result),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  resultWritten = true;
  return exitCodeFor(result);
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

main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `pull-secret: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
