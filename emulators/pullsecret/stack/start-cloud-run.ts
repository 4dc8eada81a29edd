import { layoutEnv } from '../../../shared/pull-secret/namespace-layout';
import fs from 'node:fs';
import path from 'node:path';
import type { ReadyProcess } from '../../common/child-process';
import { jobNodeArgs } from '../job-image';
import { defaultVersionEnv } from './default-pull-secret';
import { DEFAULT_MANAGEMENT_CLUSTER, JOB_NAME, LOCAL_PROJECT, TOPICS, topicPath } from './layout';
import { emulatorEnv, type Launcher } from './launcher';

/** The endpoints and files the job's environment names. */
export interface JobWiring {
  readonly secretManager: ReadyProcess;
  readonly eventarc: ReadyProcess;
  /** MANAGEMENT_CLUSTERS_FILE and the metadata server, as production gives them (cluster-access.ts). */
  readonly accessEnv: Record<string, string>;
  /** IAM, token info, enforcement and TLS as every Google emulator of the stack has them. */
  readonly apiArgs: readonly string[];
  readonly hyperfleetUrl: string;
  readonly hyperfleetToken: string;
  readonly pubsubEndpoint: string;
  readonly otelEnv: Record<string, string>;
}

/**
 * The pull-secret job as the Cloud Run emulator runs it: the image's ENTRYPOINT (its Dockerfile's
 * flags and NODE_OPTIONS) and the args Terraform's job.tf gives the container (what
 * `gcloud run jobs execute --args=doctor` replaces), with the local stack's environment.
 */
export function pullSecretJobDefinition(
  launcher: Launcher,
  wiring: JobWiring,
): Record<string, unknown> {
  const { options } = launcher;
  return {
    name: JOB_NAME,
    command: [
      process.execPath,
      ...jobNodeArgs(),
      path.join(options.root, 'dist-bundle/pull-secret-job/main.mjs'),
    ],
    args: ['run-job', 'pull-secret'],
    image: 'local/pull-secret-job',
    timeoutSeconds: options.jobTimeoutSeconds ?? 120,
    maxRetries: 0,
    // job.tf's task_count and parallelism (a RunJob's overrides.task_count replaces the first).
    taskCount: 1,
    parallelism: 0,
    memoryLimitMiB: 512,
    logDir: path.join(launcher.logDir, 'jobs'),
    env: {
      // Over TLS with the job's own token, as on Google's endpoint (the emulator enforces IAM).
      SECRET_MANAGER_API_ENDPOINT: wiring.secretManager.info.endpoint as string,
      // What `pull-secret doctor` reads besides the job's own services: Resource Manager's
      // testIamPermissions (on the Secret Manager emulator) and Eventarc's triggers.
      ...emulatorEnv(wiring.secretManager, 'RESOURCE_MANAGER_EMULATOR_HOST'),
      // The tenant's location policy, read when a cluster asks for replication regions.
      ...emulatorEnv(wiring.secretManager, 'ORG_POLICY_EMULATOR_HOST'),
      ...emulatorEnv(wiring.eventarc, 'EVENTARC_EMULATOR_HOST'),
      // Every management cluster as production names it (an endpoint, a CA only for an IP
      // endpoint), reached with the job's Google token from the metadata server.
      ...wiring.accessEnv,
      DEFAULT_MANAGEMENT_CLUSTER,
      HYPERFLEET_API_BASE_URL: wiring.hyperfleetUrl,
      HYPERFLEET_API_AUTH_TOKEN_PATH: wiring.hyperfleetToken,
      RESULTS_TOPIC: topicPath(TOPICS.results),
      PUBSUB_EMULATOR_HOST: wiring.pubsubEndpoint,
      LOG_FORMAT: 'json',
      // The regions a cluster spec may ask its pull secret to be replicated in (Terraform
      // job.allowed_replication_locations): two, so the local stack shows both answers.
      ALLOWED_REPLICATION_LOCATIONS: 'us-central1,us-east1',
      LOG_LEVEL: options.logLevel ?? 'info',
      RETRY_BASE_DELAY: '200ms',
      GCP_API_TIMEOUT: '10s',
      KUBERNETES_NAMESPACE_WAIT: '30s',
      // The platform project logs and spans are filed under (Terraform sets it in GCP).
      GOOGLE_CLOUD_PROJECT: LOCAL_PROJECT,
      ...layoutEnv(launcher.layout.current),
      ...wiring.otelEnv,
      // The job reads it only in `pull-secret doctor` (a run gets the version from the adapter, as
      // PULL_SECRET_SECRET_VERSION); Terraform sets it on both.
      ...defaultVersionEnv(options),
      ...options.jobEnv,
    },
  };
}

/** The Cloud Run Jobs emulator with the pull-secret job, publishing execution-finished entries. */
export function startCloudRun(launcher: Launcher, wiring: JobWiring): Promise<ReadyProcess> {
  const jobsFile = path.join(launcher.options.workDir, 'cloud-run-jobs.json');
  fs.writeFileSync(jobsFile, JSON.stringify([pullSecretJobDefinition(launcher, wiring)]));
  return launcher.emulator(
    'cloud-run',
    [
      '--config',
      jobsFile,
      '--finished-topic',
      topicPath(TOPICS.finished),
      ...wiring.apiArgs,
      // jobs.run's REST surface and the control API share the admin port: plaintext, so that the
      // launch queue and the stack's tools reach it without the CA (the token is still checked).
      '--plaintext-admin',
    ],
    { ...launcher.baseEnv, PUBSUB_EMULATOR_HOST: wiring.pubsubEndpoint },
  );
}
