import type { JobResult } from '../../../shared/job-result';
import { describeClaim, type Claim } from '../../../shared/pull-secret/claim';
import type { Provisioned, StatusOutcome } from '../../../shared/status/outcome';
import type { ExecutionSummary } from '../../../shared/executions/execution-reader';
import { classifyExecutionFailure } from '../../../shared/executions/execution-failure';
import {
  SINGLE_MANAGEMENT_CLUSTER_NAME,
  kubernetesSecretName,
  secretManagerSecretId,
} from '../../../shared/pull-secret/names';

/** A status to write: for which cluster and generation, and when it was observed. */
export interface PlannedReport {
  readonly clusterId: string;
  readonly generation: number;
  readonly outcome: StatusOutcome;
  readonly observedAt: string;
}

/** Nothing to report, and why; `decision` marks duplicates in the logs. */
export interface SkippedReport {
  readonly skip: string;
  readonly decision?: 'duplicate';
}

/**
 * The report for a job result: the most specific one. Its observed_time is when the job finished,
 * which is later than the execution's start, so it wins over a bare report from the
 * execution-finished event, whichever arrives first.
 */
export function planFromJobResult(
  result: JobResult,
  jobName: string,
): PlannedReport | SkippedReport {
  if (result.dry_run) return { skip: 'dry-run results are not reported' };
  // A duplicate wrote nothing; the claim holder reports. Reporting it could overwrite the winner.
  if (result.outcome === 'duplicate')
    return {
      skip: `execution ${result.execution ?? 'unknown'} was a duplicate (${result.reason}): ${result.message}`,
      decision: 'duplicate',
    };
  if (result.generation === undefined)
    return { skip: 'the result has no generation (a direct run, not launched by the adapter)' };
  const execution = result.execution ? `${jobName}/executions/${result.execution}` : undefined;
  const timing = {
    ...(result.started_at ? { startedAt: result.started_at } : {}),
    completedAt: result.finished_at,
  };
  const plan = (outcome: StatusOutcome): PlannedReport => ({
    clusterId: result.cluster_id,
    generation: result.generation!,
    outcome,
    observedAt: result.finished_at,
  });
  if (result.outcome === 'failed') {
    return plan({
      kind: 'failed',
      operation: result.operation,
      ...(execution ? { execution } : {}),
      reason: result.reason,
      message: result.message,
      failureKind: result.failure_kind ?? 'transient',
      attempt: result.attempt ?? 1,
      timing,
    });
  }
  if (result.operation === 'delete')
    return plan({
      kind: 'finalized',
      execution: execution ?? 'unknown',
      message: result.message,
      timing,
    });
  const sm = result.secret_manager;
  if (!sm) return { skip: 'a successful result without a Secret Manager section' };
  // `none`: the platform default is in use and no tenant version holds it.
  const version = sm.version === 'none' ? undefined : sm.version_name.split('/').pop() || 'latest';
  return plan({
    kind: 'succeeded',
    execution: execution ?? 'unknown',
    provisioned: {
      secretPath: sm.secret_path,
      ...(version ? { secretVersion: version } : {}),
      ...(result.pull_secret_source ? { pullSecretSource: result.pull_secret_source } : {}),
      ...(result.kubernetes
        ? {
            kubernetesSecret: {
              ...(result.kubernetes.management_cluster
                ? { managementCluster: result.kubernetes.management_cluster }
                : {}),
              namespace: result.kubernetes.namespace,
              name: result.kubernetes.name,
            },
          }
        : {}),
      ...(result.pull_secret_sha256_prefix
        ? { sha256Prefix: result.pull_secret_sha256_prefix }
        : {}),
    },
    timing,
  });
}

/**
 * The report for an execution-finished event, which also covers crashes, OOM kills, timeouts and
 * cancellation. Observed at the execution's start: the job's own result, if it ever arrives, is
 * later and therefore wins; a late event of an older execution is discarded by the API.
 */
export function planFromExecution(summary: ExecutionSummary): PlannedReport | { skip: string } {
  const clusterId = summary.env.CLUSTER_ID;
  const generation = Number(summary.env.GENERATION);
  if (!clusterId || !Number.isInteger(generation) || generation < 1)
    return {
      skip: 'the execution was not launched by the adapter (no CLUSTER_ID/GENERATION overrides)',
    };
  if (!summary.completionTime) return { skip: 'the execution has not completed yet' };
  const operation = summary.env.OPERATION === 'delete' ? 'delete' : 'apply';
  const observedAt = summary.startTime ?? summary.completionTime;
  const timing = {
    ...(summary.startTime ? { startedAt: summary.startTime } : {}),
    completedAt: summary.completionTime,
  };
  const plan = (outcome: StatusOutcome): PlannedReport => ({
    clusterId,
    generation,
    outcome,
    observedAt,
  });
  if (!summary.succeeded) {
    const failure = classifyExecutionFailure(summary);
    const exit = failure.exitCode !== undefined ? `, exit code ${failure.exitCode}` : '';
    return plan({
      kind: 'failed',
      operation,
      execution: summary.name,
      reason: failure.reason,
      message: `Execution ${summary.name.split('/').pop()} failed (${failure.executionReason}${exit}): ${summary.message || 'no message from Cloud Run'}`,
      failureKind: failure.failureKind,
      attempt: Number(summary.env.LAUNCH_ATTEMPT) || 1,
      timing,
      executionReason: failure.executionReason,
    });
  }
  if (operation === 'delete')
    return plan({
      kind: 'finalized',
      execution: summary.name,
      message: `Execution ${summary.name.split('/').pop()} removed the pull secret`,
      timing,
    });
  const project = summary.env.GCP_PROJECT_ID ?? 'unknown';
  const secretId = summary.env.SECRET_NAME ?? secretManagerSecretId(clusterId);
  // The platform default is not copied to the tenant project unless opted in (not an override, so
  // not known here): no version is named until the job's own result says which, if any.
  const source = sourceOf(summary.env.PULL_SECRET_SOURCE);
  return plan({
    kind: 'succeeded',
    execution: summary.name,
    provisioned: {
      secretPath: `projects/${project}/secrets/${secretId}`,
      ...(source === 'platform-default' ? {} : { secretVersion: 'latest' }),
      ...(source ? { pullSecretSource: source } : {}),
      ...(summary.env.MANAGEMENT_NAMESPACE
        ? {
            kubernetesSecret: {
              ...managementClusterOf(summary.env),
              namespace: summary.env.MANAGEMENT_NAMESPACE,
              name: summary.env.K8S_SECRET_NAME ?? kubernetesSecretName(clusterId),
            },
          }
        : {}),
    },
    timing,
  });
}

/** The status data's `pull_secret_source` for the adapter's PULL_SECRET_SOURCE override. */
function sourceOf(override: string | undefined): Provisioned['pullSecretSource'] {
  if (override === 'secret-manager') return 'platform-default';
  return override === 'cluster-spec' ? 'cluster-spec' : undefined;
}

/**
 * The management cluster an execution wrote to, from its environment as the job reads it: the
 * MANAGEMENT_CLUSTER override, else DEFAULT_MANAGEMENT_CLUSTER, else the only MANAGEMENT_CLUSTERS
 * entry, else `default` for the single-cluster variables. Nothing when it cannot tell.
 */
export function managementClusterOf(env: Readonly<Record<string, string | undefined>>): {
  managementCluster?: string;
} {
  const name = env.MANAGEMENT_CLUSTER || env.DEFAULT_MANAGEMENT_CLUSTER || onlyCluster(env);
  return name ? { managementCluster: name } : {};
}

function onlyCluster(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.MANAGEMENT_CLUSTERS) {
    try {
      const parsed: unknown = JSON.parse(env.MANAGEMENT_CLUSTERS);
      const names = parsed && typeof parsed === 'object' ? Object.keys(parsed) : [];
      return names.length === 1 ? names[0] : undefined;
    } catch {
      return undefined;
    }
  }
  return env.KUBECONFIG || env.MANAGEMENT_CLUSTER_ENDPOINT
    ? SINGLE_MANAGEMENT_CLUSTER_NAME
    : undefined;
}

/** The Secret Manager secret an adapter-launched execution worked on (from its overrides). */
export function secretPathOf(summary: ExecutionSummary): string | undefined {
  const clusterId = summary.env.CLUSTER_ID;
  const project = summary.env.GCP_PROJECT_ID;
  if (!clusterId || !project) return undefined;
  return `projects/${project}/secrets/${summary.env.SECRET_NAME ?? secretManagerSecretId(clusterId)}`;
}

/**
 * A successful execution that does not hold the claim on its secret, for its generation or a newer
 * one, stood aside as a duplicate (or was superseded) and wrote nothing: its success must not be
 * reported, because it could overwrite the holder's report. No claim at all (a delete that found
 * nothing, a secret from before claims existed) decides nothing.
 */
export function skipUnclaimedSuccess(
  summary: ExecutionSummary,
  claim: Claim | undefined,
): SkippedReport | undefined {
  const execution = summary.name.split('/').pop() ?? summary.name;
  if (!claim || claim.execution === execution) return undefined;
  if (claim.generation < Number(summary.env.GENERATION)) return undefined;
  return {
    skip: `execution ${execution} succeeded without holding the claim (held for ${describeClaim(claim)}): it was a duplicate and wrote nothing`,
    decision: 'duplicate',
  };
}
