import type { AdapterStatusRequest, ConditionRequest } from '../hyperfleet/schemas';
import type { ExecutionTiming, Provisioned, StatusOutcome } from './outcome';

/** Our adapter name in the HyperFleet API: exactly `pullsecret`. */
export const ADAPTER_NAME = 'pullsecret';

const condition = (
  type: string,
  status: 'True' | 'False',
  reason: string,
  message: string,
): ConditionRequest => ({ type, status, reason, message });
const healthy = (message = 'The pull secret adapter reports no errors') =>
  condition('Health', 'True', 'NoErrors', message);

/**
 * Builds the status body for an outcome, following the pattern table of the contract: every
 * condition has a non-empty reason and message; Finalized is added while deleting; `data` carries
 * what the adapter needs to read back (execution, attempt, failure kind) and what HyperShift needs
 * (`pull_secret_name`).
 */
export function buildStatus(
  outcome: StatusOutcome,
  generation: number,
  observedTime: Date,
): AdapterStatusRequest {
  const base = {
    adapter: ADAPTER_NAME,
    observed_generation: generation,
    observed_time: observedTime.toISOString(),
  };
  switch (outcome.kind) {
    case 'not-met':
      return {
        ...base,
        conditions: [
          condition('Applied', 'False', 'PreconditionsNotMet', outcome.message),
          condition('Available', 'False', 'PreconditionsNotMet', outcome.message),
          healthy('Preconditions were evaluated without errors'),
        ],
        data: { precondition: outcome.precondition },
      };
    case 'precondition-error':
      return {
        ...base,
        conditions: [
          condition('Applied', 'False', 'PreconditionsNotEvaluated', outcome.message),
          condition('Available', 'False', 'PreconditionsNotEvaluated', outcome.message),
          condition('Health', 'False', 'ExecutionFailed:preconditions', outcome.message),
        ],
      };
    case 'launching': {
      const purpose = outcome.operation === 'delete' ? 'remove' : 'provision';
      const abandoned = outcome.abandoned;
      const message = abandoned
        ? `Launch ${outcome.launchId} did not start an execution: ${abandoned.message}`
        : `Launching a Cloud Run Job execution (launch ${outcome.launchId}) to ${purpose} the pull secret`;
      return {
        ...base,
        conditions: [
          abandoned
            ? condition('Applied', 'False', abandoned.reason, message)
            : condition('Applied', 'True', 'JobLaunching', message),
          condition('Available', 'False', abandoned?.reason ?? 'JobLaunching', message),
          abandoned ? condition('Health', 'False', abandoned.reason, message) : healthy(),
          ...(outcome.operation === 'delete'
            ? [condition('Finalized', 'False', abandoned?.reason ?? 'CleanupInProgress', message)]
            : []),
        ],
        data: {
          launch_id: outcome.launchId,
          operation: outcome.operation,
          generation,
          attempt: outcome.attempt,
          launched_at: outcome.since,
          ...(abandoned ? { launch_abandoned: true } : {}),
        },
      };
    }
    case 'launched': {
      const message = `Cloud Run Job execution ${outcome.execution} launched to ${outcome.operation === 'delete' ? 'remove' : 'provision'} the pull secret`;
      return {
        ...base,
        conditions: [
          condition('Applied', 'True', 'JobLaunched', message),
          condition(
            'Available',
            'False',
            'JobRunning',
            `Execution ${outcome.execution} is running`,
          ),
          healthy(),
          ...(outcome.operation === 'delete'
            ? [
                condition(
                  'Finalized',
                  'False',
                  'CleanupInProgress',
                  `Execution ${outcome.execution} is removing the pull secret`,
                ),
              ]
            : []),
        ],
        data: {
          execution: outcome.execution,
          operation: outcome.operation,
          launched_at: outcome.launchedAt,
          attempt: outcome.attempt,
          ...(outcome.launchId ? { launch_id: outcome.launchId } : {}),
        },
        metadata: {
          job_name: shortName(outcome.execution),
          attempt: outcome.attempt,
          started_time: outcome.launchedAt,
        },
      };
    }
    case 'launch-failed':
      return {
        ...base,
        conditions: [
          condition('Applied', 'False', outcome.reason, outcome.message),
          condition('Available', 'False', outcome.reason, outcome.message),
          condition('Health', 'False', outcome.reason, outcome.message),
          ...(outcome.operation === 'delete'
            ? [condition('Finalized', 'False', outcome.reason, outcome.message)]
            : []),
        ],
        data: { operation: outcome.operation, failure_kind: 'permanent', reason: outcome.reason },
      };
    case 'succeeded': {
      const p = outcome.provisioned;
      const k = p.kubernetesSecret;
      return {
        ...base,
        conditions: [
          condition('Applied', 'True', 'JobSucceeded', `Execution ${outcome.execution} completed`),
          condition('Available', 'True', 'PullSecretProvisioned', provisionedMessage(p)),
          healthy(),
        ],
        data: {
          execution: outcome.execution,
          operation: 'apply',
          secret_path: p.secretPath,
          ...(p.secretVersion !== undefined ? { secret_version: p.secretVersion } : {}),
          ...(p.pullSecretSource ? { pull_secret_source: p.pullSecretSource } : {}),
          ...(k ? kubernetesSecretData(k) : {}),
          ...(p.sha256Prefix ? { pull_secret_sha256_prefix: p.sha256Prefix } : {}),
        },
        metadata: executionMetadata(outcome.execution, outcome.timing),
      };
    }
    case 'failed':
      return {
        ...base,
        conditions: [
          condition(
            'Applied',
            'True',
            'JobExecuted',
            `Execution ${outcome.execution ?? '(unknown)'} ran and failed`,
          ),
          condition('Available', 'False', outcome.reason, outcome.message),
          condition('Health', 'False', outcome.reason, outcome.message),
          ...(outcome.operation === 'delete'
            ? [condition('Finalized', 'False', outcome.reason, outcome.message)]
            : []),
        ],
        data: {
          ...(outcome.execution ? { execution: outcome.execution } : {}),
          operation: outcome.operation,
          failure_kind: outcome.failureKind,
          reason: outcome.reason,
          attempt: outcome.attempt,
          ...(outcome.executionReason ? { execution_reason: outcome.executionReason } : {}),
        },
        ...(outcome.execution && outcome.timing
          ? { metadata: executionMetadata(outcome.execution, outcome.timing) }
          : {}),
      };
    case 'finalized':
      return {
        ...base,
        conditions: [
          condition('Applied', 'False', 'CleanupConfirmed', outcome.message),
          condition('Available', 'False', 'CleanupConfirmed', outcome.message),
          healthy(),
          condition('Finalized', 'True', 'CleanupConfirmed', outcome.message),
        ],
        data: { execution: outcome.execution, operation: 'delete' },
        metadata: executionMetadata(outcome.execution, outcome.timing),
      };
  }
}

/** The Available message: where the pull secret is; the platform default is said as such. */
function provisionedMessage(p: Provisioned): string {
  const k = p.kubernetesSecret;
  const pushed = k
    ? `pushed to Secret ${k.namespace}/${k.name}${k.managementCluster ? ` on management cluster ${k.managementCluster}` : ''}`
    : '';
  if (p.secretVersion === undefined)
    return `The platform default pull secret is in use${pushed ? `, ${pushed}` : ''} (not copied to the tenant project: ${p.secretPath} holds no version of it)`;
  const source = p.pullSecretSource === 'platform-default' ? ' (the platform default)' : '';
  return `Pull secret${source} stored in ${p.secretPath}/versions/${p.secretVersion}${pushed ? ` and ${pushed}` : ''}`;
}

/**
 * Where the Kubernetes Secret is, in the keys the HyperShift adapter reads (a contract: README,
 * "Status data"; pinned by test/unit/shared/status-data-contract.test.ts). `namespace` is the
 * HostedCluster's namespace and `pull_secret_name` its `spec.pullSecret.name`.
 */
function kubernetesSecretData(
  k: NonNullable<Provisioned['kubernetesSecret']>,
): Record<string, unknown> {
  const cluster = k.managementCluster ? { management_cluster: k.managementCluster } : {};
  return {
    ...cluster,
    namespace: k.namespace,
    pull_secret_name: k.name,
    kubernetes_secret: { ...cluster, namespace: k.namespace, name: k.name },
  };
}

/** `projects/p/locations/l/jobs/j/executions/e` -> `e`. */
export function shortName(resource: string): string {
  return resource.split('/').pop() ?? resource;
}

function executionMetadata(execution: string, timing: ExecutionTiming): Record<string, unknown> {
  const duration =
    timing.startedAt !== undefined
      ? `${Math.max(0, Math.round((Date.parse(timing.completedAt) - Date.parse(timing.startedAt)) / 1000))}s`
      : undefined;
  return {
    job_name: shortName(execution),
    ...(timing.startedAt ? { started_time: timing.startedAt } : {}),
    completed_time: timing.completedAt,
    ...(duration ? { duration } : {}),
  };
}
