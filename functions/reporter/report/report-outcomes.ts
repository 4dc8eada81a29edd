import { parseSecretManagerName } from '../../../shared/gcp/secret-manager-names';
import type { JobResult } from '../../../shared/job-result';
import { describeClaim, type Claim } from '../../../shared/pull-secret/claim';
import { PUBLISHED_VERSION_ALIAS } from '../../../shared/pull-secret/names';
import type { Provisioned, StatusOutcome } from '../../../shared/status/outcome';
import type { PlannedReport, SkippedReport } from '../../../shared/status/planned-report';
import type { ExecutionSummary } from '../../../shared/executions/execution-reader';

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
  if (result.outcome === 'stood-aside')
    return {
      skip: `execution ${result.execution ?? 'unknown'} stood aside (${result.reason}): ${result.message}`,
      decision: 'stood-aside',
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
  // `none`: the platform default is in use and no tenant version holds it. Only the version id is
  // taken from version_name, whichever form its project is in (a job before the names were put in
  // the request's form wrote the project number Secret Manager answers): the status pairs it with
  // secret_path, which names the project as configured.
  const version =
    sm.version === 'none'
      ? undefined
      : (parseSecretManagerName(sm.version_name)?.version ?? PUBLISHED_VERSION_ALIAS);
  return plan({
    kind: 'succeeded',
    execution: execution ?? 'unknown',
    ...(result.attempt ? { attempt: result.attempt } : {}),
    provisioned: {
      secretPath: sm.secret_path,
      ...(version ? { secretVersion: version } : {}),
      ...(result.pull_secret_source ? { pullSecretSource: result.pull_secret_source } : {}),
      ...(result.default_version ? { defaultVersion: result.default_version } : {}),
      ...(result.kubernetes ? { kubernetesSecret: kubernetesSecretOf(result.kubernetes) } : {}),
      ...(result.pull_secret_sha256_prefix
        ? { sha256Prefix: result.pull_secret_sha256_prefix }
        : {}),
    },
    timing,
  });
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
    skip: `execution ${execution} succeeded without holding the claim (held for ${describeClaim(claim)}): it stood aside and wrote nothing`,
    decision: 'stood-aside',
  };
}

/** Where the job's result says the Kubernetes Secret is, as the status reports it. */
function kubernetesSecretOf(
  k: NonNullable<JobResult['kubernetes']>,
): NonNullable<Provisioned['kubernetesSecret']> {
  return {
    ...(k.management_cluster ? { managementCluster: k.management_cluster } : {}),
    namespace: k.namespace,
    name: k.name,
    ...(k.previous_layout_namespace
      ? { previousLayoutNamespace: k.previous_layout_namespace }
      : {}),
  };
}
