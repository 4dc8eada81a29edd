import { ConfigError } from '../../shared/errors';
import type { JobResult } from '../../shared/job-result';
import type { Logger } from '../../shared/logging/logger';
import { pullSecretFingerprint } from '../../shared/pull-secret/fingerprint';
import { parsePullSecret } from '../../shared/pull-secret/validate';
import type { JobConfig } from './config';
import { describeFailure } from './job-outcome';
import { secretManagerLabels } from './labels';
import type { SecretStore } from './secret-store';
import { syncSecretManager, type SecretManagerOutcome } from './sync-secret-manager';

/** The ports the job talks through; built by main.ts, faked nowhere (tests use the emulators). */
export interface JobDependencies {
  readonly secretStore: SecretStore;
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
    durations.total = Date.now() - started;
    const message = options.dryRun
      ? `Dry run: Secret Manager secret ${stored.secretPath} would be ${stored.secret === 'created' ? 'created' : 'reused'} and its version ${stored.version === 'added' ? 'added' : 'left unchanged'}.`
      : `Pull secret stored in ${stored.versionName} (${stored.version === 'added' ? 'new version' : 'unchanged'}).`;
    log.info(message, { phase: 'completed', operation: 'completed', duration_ms: durations.total });
    return {
      ...base,
      outcome: 'succeeded',
      phases,
      reason: 'PullSecretProvisioned',
      message,
      pull_secret_sha256_prefix: fingerprint,
      secret_manager: secretManagerSummary(stored),
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
