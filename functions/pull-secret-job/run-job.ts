import { ConfigError } from '../../shared/errors';
import type { JobResult } from '../../shared/job-result';
import type { Logger } from '../../shared/logging/logger';
import { pullSecretFingerprint } from '../../shared/pull-secret/fingerprint';
import { parsePullSecret } from '../../shared/pull-secret/validate';
import type { JobConfig } from './config';
import { describeFailure } from './job-outcome';
import { kubernetesLabels, secretManagerLabels } from './labels';
import type { ClusterSecrets } from './cluster-secrets';
import type { SecretStore } from './secret-store';
import { syncKubernetesSecret, type KubernetesOutcome } from './sync-kubernetes';
import { syncSecretManager, type SecretManagerOutcome } from './sync-secret-manager';

/** The ports the job talks through; built by main.ts, faked nowhere (tests use the emulators). */
export interface JobDependencies {
  readonly secretStore: SecretStore;
  /** Built on first use, so runs without a Kubernetes phase never load its client. */
  readonly clusterSecrets: () => Promise<ClusterSecrets>;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/**
 * Runs one execution: validate the pull secret, store it in Secret Manager. Never throws: every
 * failure becomes a failed JobResult with a reason, so the caller can always print and publish one.
 */
export async function runPullSecretJob(
  config: JobConfig,
  deps: JobDependencies,
  options: { dryRun: boolean },
): Promise<JobResult> {
  const now = deps.now ?? (() => new Date());
  const started = Date.now();
  const durations: Record<string, number> = {};
  const phases: JobResult['phases'] = [];
  const base = {
    operation: config.operation,
    dry_run: options.dryRun,
    cluster_id: config.clusterId,
    ...(config.generation ? { generation: config.generation } : {}),
    ...(config.execution ? { execution: config.execution } : {}),
  };
  const log = deps.logger.child({ cluster_id: config.clusterId, gcp_project: config.projectId });
  let fingerprint: string | undefined;
  let stored: SecretManagerOutcome | undefined;
  let pushed: KubernetesOutcome | undefined;
  try {
    if (config.pullSecretData === undefined) {
      throw new ConfigError(
        'Invalid pull secret job configuration: PULL_SECRET_DATA: is required (no other pull secret source is configured).',
      );
    }
    parsePullSecret(config.pullSecretData);
    const data = Buffer.from(config.pullSecretData, 'utf8');
    fingerprint = pullSecretFingerprint(data);
    log.info('Pull secret validated', {
      phase: 'validate',
      operation: 'validate-pull-secret',
      pull_secret_sha256_prefix: fingerprint,
      bytes: data.length,
    });

    const smStarted = Date.now();
    phases.push('secret-manager');
    stored = await syncSecretManager(
      deps.secretStore,
      {
        projectId: config.projectId,
        secretId: config.secretId,
        labels: secretManagerLabels(config),
        replication: config.replication,
        ...(config.retention ? { retention: config.retention } : {}),
      },
      data,
      { logger: log, retry: config.retry, dryRun: options.dryRun },
    );
    durations.secret_manager = Date.now() - smStarted;

    if (config.kubernetes) {
      const k8sStarted = Date.now();
      phases.push('kubernetes');
      pushed = await syncKubernetesSecret(
        await deps.clusterSecrets(),
        {
          namespace: config.kubernetes.namespace,
          name: config.kubernetes.secretName,
          labels: kubernetesLabels(config),
          dockerConfigJson: data,
          gcpSecretPath: stored.versionName || `${stored.secretPath}/versions/latest`,
        },
        {
          logger: log,
          dryRun: options.dryRun,
          namespaceWaitMs: config.kubernetes.namespaceWaitMs,
          retry: config.retry,
        },
      );
      durations.kubernetes = Date.now() - k8sStarted;
    }
    durations.total = Date.now() - started;
    const message = summarise(stored, pushed, options.dryRun);
    log.info(message, { phase: 'completed', operation: 'completed', duration_ms: durations.total });
    return {
      ...base,
      outcome: 'succeeded',
      phases,
      reason: 'PullSecretProvisioned',
      message,
      pull_secret_sha256_prefix: fingerprint,
      secret_manager: secretManagerSummary(stored),
      ...(pushed ? { kubernetes: kubernetesSummary(pushed) } : {}),
      durations_ms: durations,
      finished_at: now().toISOString(),
    };
  } catch (error) {
    const failure = describeFailure(error);
    durations.total = Date.now() - started;
    log.error(failure.message, {
      phase: 'failed',
      operation: 'failed',
      reason: failure.reason,
      failure_kind: failure.failure_kind,
      duration_ms: durations.total,
    });
    return {
      ...base,
      outcome: 'failed',
      phases,
      ...failure,
      ...(fingerprint ? { pull_secret_sha256_prefix: fingerprint } : {}),
      ...(stored ? { secret_manager: secretManagerSummary(stored) } : {}),
      ...(pushed ? { kubernetes: kubernetesSummary(pushed) } : {}),
      durations_ms: durations,
      finished_at: now().toISOString(),
    };
  }
}

function secretManagerSummary(
  outcome: SecretManagerOutcome,
): NonNullable<JobResult['secret_manager']> {
  return {
    secret_path: outcome.secretPath,
    secret: outcome.secret,
    version: outcome.version,
    version_name: outcome.versionName,
    verified: outcome.verified,
    destroyed_versions: [...outcome.destroyedVersions],
  };
}

function kubernetesSummary(outcome: KubernetesOutcome): NonNullable<JobResult['kubernetes']> {
  return {
    namespace: outcome.namespace,
    name: outcome.name,
    outcome: outcome.outcome,
    ...(outcome.resourceVersion ? { resource_version: outcome.resourceVersion } : {}),
  };
}

/** One sentence for people: where the pull secret is now. */
function summarise(
  stored: SecretManagerOutcome,
  pushed: KubernetesOutcome | undefined,
  dryRun: boolean,
): string {
  if (dryRun) {
    const k8s = pushed
      ? ` Kubernetes Secret ${pushed.namespace}/${pushed.name} would be ${pushed.outcome === 'unchanged' ? 'left unchanged' : pushed.outcome.replace('ed', 'e') + 'd'}.`
      : '';
    return `Dry run: Secret Manager secret ${stored.secretPath} would be ${stored.secret === 'created' ? 'created' : 'reused'} and its version ${stored.version === 'added' ? 'added' : 'left unchanged'}.${k8s}`;
  }
  const sm = `Pull secret stored in ${stored.versionName} (${stored.version === 'added' ? 'new version' : 'unchanged'})`;
  return pushed
    ? `${sm}; Kubernetes Secret ${pushed.namespace}/${pushed.name} ${pushed.outcome}.`
    : `${sm}.`;
}
