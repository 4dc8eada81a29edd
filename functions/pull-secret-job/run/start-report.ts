import { jobStartedSchema, type JobStarted } from '../../../shared/job-result';
import type { Logger } from '../../../shared/logging/logger';
import type { JobConfig } from '../config/config';
import type { ClusterSecrets } from '../kubernetes/cluster-secrets';
import type { SecretStore } from '../secret-manager/secret-store';
import { boundedWait } from '../telemetry/termination';
import type { JobDependencies } from './run-context';

/**
 * How long a write waits for the start report at most. Its publish is bounded by its own retries
 * (job-clients.ts); this bound holds even if Pub/Sub never answers: the run then goes on, since the
 * adapter re-checks a launch whose start it never heard of (LAUNCH_START_GRACE).
 */
export const START_REPORT_WAIT_MS = 10_000;

/**
 * The start report of an execution the adapter launched (GENERATION and CLOUD_RUN_EXECUTION set,
 * not a dry run); undefined for any other run, which has no queued status to turn into `launched`.
 */
export function startedMessage(
  config: JobConfig,
  dryRun: boolean,
  startedAt: Date,
  logger: Logger,
): JobStarted | undefined {
  if (dryRun || config.generation === undefined || !config.execution) return undefined;
  const parsed = jobStartedSchema.safeParse({
    cluster_id: config.clusterId,
    generation: config.generation,
    operation: config.operation,
    attempt: config.attempt ?? 1,
    execution: config.execution,
    ...(config.launchId ? { launch_id: config.launchId } : {}),
    started_at: startedAt.toISOString(),
  });
  if (parsed.success) return parsed.data;
  logger.warn(
    `Not reporting the start: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`,
    { operation: 'publish-started' },
  );
  return undefined;
}

/**
 * The run's ports with every write held until the start report has settled (published or given
 * up, at most START_REPORT_WAIT_MS): the reporter hears of the start before anything is written.
 * Reads pass straight through, so the publish overlaps the run's first reads (the pull secret's
 * source, the claim's GetSecret) and usually costs the run nothing.
 */
export function writesAfter(startReport: Promise<unknown>, deps: JobDependencies): JobDependencies {
  const settled = boundedWait(startReport, START_REPORT_WAIT_MS);
  const after =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await settled;
      return write(...args);
    };
  const store = deps.secretStore;
  const secretStore: SecretStore = {
    getSecret: (name) => store.getSecret(name),
    accessVersion: (name) => store.accessVersion(name),
    listVersions: (name) => store.listVersions(name),
    createSecret: after((...args: Parameters<SecretStore['createSecret']>) =>
      store.createSecret(...args),
    ),
    updateSecret: after((...args: Parameters<SecretStore['updateSecret']>) =>
      store.updateSecret(...args),
    ),
    addVersion: after((...args: Parameters<SecretStore['addVersion']>) =>
      store.addVersion(...args),
    ),
    destroyVersion: after((name: string) => store.destroyVersion(name)),
    disableVersion: after((name: string) => store.disableVersion(name)),
    expireAfter: after((...args: Parameters<SecretStore['expireAfter']>) =>
      store.expireAfter(...args),
    ),
  };
  const clusterSecrets = async (cluster: string): Promise<ClusterSecrets> => {
    const secrets = await deps.clusterSecrets(cluster);
    return {
      probeOwn: (...args) => secrets.probeOwn(...args),
      create: after((...args: Parameters<ClusterSecrets['create']>) => secrets.create(...args)),
      update: after((...args: Parameters<ClusterSecrets['update']>) => secrets.update(...args)),
      delete: after((...args: Parameters<ClusterSecrets['delete']>) => secrets.delete(...args)),
    };
  };
  return { ...deps, secretStore, clusterSecrets };
}
