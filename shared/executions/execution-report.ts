import * as z from 'zod';
import type { Provisioned, StatusOutcome } from '../status/outcome';
import type { PlannedReport } from '../status/planned-report';
import {
  PUBLISHED_VERSION_ALIAS,
  SINGLE_MANAGEMENT_CLUSTER_NAME,
  kubernetesSecretName,
  secretManagerSecretId,
} from '../pull-secret/names';
import {
  layoutOf,
  namespaceLayoutEnvShape,
  previousNamespace,
  writeNamespace,
} from '../pull-secret/namespace-layout';
import type { ExecutionSummary } from './execution-reader';
import { classifyExecutionFailure } from './execution-failure';

/**
 * The report for an execution-finished event, which also covers crashes, OOM kills, timeouts and
 * cancellation. Observed at the execution's start: the job's own result, if it ever arrives, is
 * later and therefore wins; a late event of an older execution is discarded by the API.
 *
 * Which cluster and generation the execution worked on is read from its environment: RunJob's
 * overrides as Cloud Run shows them in `Execution.template.containers[].env`. Google documents
 * the overrides as "Execution fields to be overridden"
 * (https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run#overrides) but
 * not that the Execution's `template` echoes them
 * (https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs.executions), and no
 * other documented field can carry them (RunJob cannot set `labels`). So an execution whose
 * template shows no CLUSTER_ID/GENERATION is never attributed to a cluster by guess: it is
 * skipped with a warning, and the report comes from the job's own result (which names its
 * cluster, generation and execution); an execution that died without one is relaunched by the
 * adapter's check of silent executions, which cannot read it either
 * (docs/design/job-protocol.md, "What Cloud Run emits for the reporter").
 */
export function planFromExecution(
  summary: ExecutionSummary,
): PlannedReport | { skip: string; decision?: 'execution-unattributed'; severity?: 'warn' } {
  const clusterId = summary.env.CLUSTER_ID;
  const generation = Number(summary.env.GENERATION);
  if (!clusterId || !Number.isInteger(generation) || generation < 1)
    return {
      skip: `Cloud Run shows no CLUSTER_ID/GENERATION in execution ${summary.name.split('/').pop()}'s template (an execution the adapter did not launch, or overrides Cloud Run did not echo): not attributed to any cluster; the job's own result reports it`,
      decision: 'execution-unattributed',
      severity: 'warn',
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
    attempt: Number(summary.env.LAUNCH_ATTEMPT) || 1,
    provisioned: {
      secretPath: `projects/${project}/secrets/${secretId}`,
      // Not `latest`: after a lost race it may name a version its execution withdrew.
      ...(source === 'platform-default' ? {} : { secretVersion: PUBLISHED_VERSION_ALIAS }),
      ...(source ? { pullSecretSource: source } : {}),
      ...(summary.env.MANAGEMENT_NAMESPACE
        ? {
            kubernetesSecret: {
              ...managementClusterOf(summary.env),
              ...placeUnderLayout(summary.env, clusterId, summary.env.MANAGEMENT_NAMESPACE),
              name: kubernetesSecretName(clusterId),
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
 * MANAGEMENT_CLUSTERS_FILE is never read here (the reporter has no access to the job's bucket,
 * and the list may hold 1,000 clusters): with the file, Terraform sets DEFAULT_MANAGEMENT_CLUSTER
 * whenever there is a single cluster, and with several every execution names its own.
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

const layoutEnvSchema = z.object(namespaceLayoutEnvShape);

/**
 * Where the job wrote, from the execution's environment (the job's template with the overrides,
 * as Cloud Run shows it), without its result: the namespace the job's layout makes of the one the
 * adapter decided (writeNamespace), and, in a migration's keep-previous phase, the previous
 * layout's namespace as kept. Claimed kept even when no copy was there: the remove-previous phase
 * then runs once for nothing, while a copy not claimed would stay behind for good.
 */
function placeUnderLayout(
  env: Readonly<Record<string, string>>,
  clusterId: string,
  decided: string,
): { namespace: string; previousLayoutNamespace?: string } {
  const parsed = layoutEnvSchema.safeParse(env);
  if (!parsed.success) return { namespace: decided };
  const layout = layoutOf(parsed.data);
  const previous =
    layout.migration?.phase === 'keep-previous' ? previousNamespace(layout, clusterId) : undefined;
  return {
    namespace: writeNamespace(layout, clusterId, decided),
    ...(previous ? { previousLayoutNamespace: previous } : {}),
  };
}
