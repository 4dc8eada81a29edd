// The status contract's pattern table as data: one row per outcome, one column per condition
// (Applied, Available, Health, and Finalized while deleting), then what `data` and `metadata`
// carry. Every condition has a non-empty reason and message.
import type {
  ExecutionTiming,
  KeptConvergence,
  Operation,
  Provisioned,
  StatusOutcome,
} from './outcome';

/** One condition's cell: status, reason, message. */
export type ConditionCell = readonly [status: 'True' | 'False', reason: string, message: string];

/** How one outcome is written; each column a function of the outcome. */
export interface StatusRow<O> {
  readonly applied: (outcome: O) => ConditionCell;
  readonly available: (outcome: O) => ConditionCell;
  readonly health: (outcome: O) => ConditionCell;
  /** The Finalized condition; no column, or undefined: none (only deletions have one). */
  readonly finalized?: (outcome: O) => ConditionCell | undefined;
  /** What the adapter reads back and HyperShift reads; no column: no `data`. */
  readonly data?: (outcome: O, generation: number) => Record<string, unknown>;
  /** The execution's job name and times; no column, or undefined: no `metadata`. */
  readonly metadata?: (outcome: O) => Record<string, unknown> | undefined;
}

export type OutcomeKind = StatusOutcome['kind'];
export type OutcomeOf = { [K in OutcomeKind]: Extract<StatusOutcome, { kind: K }> };
export type StatusTable = { [K in OutcomeKind]: StatusRow<OutcomeOf[K]> };

const HEALTHY: ConditionCell = ['True', 'NoErrors', 'The pull secret adapter reports no errors'];
const failing = (reason: string, message: string): ConditionCell => ['False', reason, message];
/** A Finalized cell only while deleting. */
const whileDeleting = (operation: Operation, cell: ConditionCell) =>
  operation === 'delete' ? cell : undefined;
const purpose = (operation: Operation) => (operation === 'delete' ? 'remove' : 'provision');

/** A background run's Available cell: the converged one it keeps, else `fallback`. */
const availableUnlessKept = (kept: KeptConvergence | undefined, fallback: ConditionCell) =>
  kept ? (['True', kept.reason, kept.message] as const) : fallback;

/** The generation's last attempt, in every row that knows it (the next launch takes a higher one). */
const attemptData = (attempt: number | undefined) => (attempt !== undefined ? { attempt } : {});

export const STATUS_TABLE: StatusTable = {
  'not-met': {
    applied: (o) => failing('PreconditionsNotMet', o.message),
    available: (o) => failing('PreconditionsNotMet', o.message),
    health: () => ['True', 'NoErrors', 'Preconditions were evaluated without errors'],
    data: (o) => ({ precondition: o.precondition, ...attemptData(o.attempt) }),
  },
  'precondition-error': {
    applied: (o) => failing('PreconditionsNotEvaluated', o.message),
    available: (o) => failing('PreconditionsNotEvaluated', o.message),
    health: (o) => failing('ExecutionFailed:preconditions', o.message),
    data: (o) => attemptData(o.attempt),
  },
  queued: {
    applied: (o) => ['True', 'JobQueued', queuedMessage(o)],
    available: (o) => availableUnlessKept(o.kept, failing('JobQueued', queuedMessage(o))),
    health: () => HEALTHY,
    finalized: (o) => whileDeleting(o.operation, failing('CleanupInProgress', queuedMessage(o))),
    data: (o) => ({
      ...o.kept?.data,
      task: o.task,
      operation: o.operation,
      attempt: o.attempt,
      launched_at: o.since,
      ...(o.launchReason ? { launch_reason: o.launchReason } : {}),
    }),
  },
  launched: {
    applied: (o) => [
      'True',
      'JobLaunched',
      `Cloud Run Job execution ${o.execution} launched to ${purpose(o.operation)} the pull secret`,
    ],
    available: (o) =>
      availableUnlessKept(o.kept, failing('JobRunning', `Execution ${o.execution} is running`)),
    health: () => HEALTHY,
    finalized: (o) =>
      whileDeleting(
        o.operation,
        failing('CleanupInProgress', `Execution ${o.execution} is removing the pull secret`),
      ),
    data: (o) => ({
      ...o.kept?.data,
      execution: o.execution,
      operation: o.operation,
      launched_at: o.launchedAt,
      attempt: o.attempt,
      ...(o.task ? { task: o.task } : {}),
      ...(o.launchReason ? { launch_reason: o.launchReason } : {}),
    }),
    metadata: (o) => ({
      job_name: shortName(o.execution),
      attempt: o.attempt,
      started_time: o.launchedAt,
    }),
  },
  'launch-failed': {
    applied: (o) => failing(o.reason, o.message),
    available: (o) => availableUnlessKept(o.kept, failing(o.reason, o.message)),
    health: (o) => failing(o.reason, o.message),
    finalized: (o) => whileDeleting(o.operation, failing(o.reason, o.message)),
    data: (o) => ({
      ...o.kept?.data,
      operation: o.operation,
      failure_kind: 'permanent',
      reason: o.reason,
      ...attemptData(o.attempt),
    }),
  },
  succeeded: {
    applied: (o) => ['True', 'JobSucceeded', `Execution ${o.execution} completed`],
    available: (o) => ['True', 'PullSecretProvisioned', provisionedMessage(o.provisioned)],
    health: () => HEALTHY,
    data: (o) => ({
      ...provisionedData(o.execution, o.provisioned),
      ...(o.attempt ? { attempt: o.attempt } : {}),
    }),
    metadata: (o) => executionMetadata(o.execution, o.timing),
  },
  failed: {
    applied: (o) => [
      'True',
      'JobExecuted',
      `Execution ${o.execution ?? '(unknown)'} ran and failed`,
    ],
    available: (o) => failing(o.reason, o.message),
    health: (o) => failing(o.reason, o.message),
    finalized: (o) => whileDeleting(o.operation, failing(o.reason, o.message)),
    data: (o) => ({
      ...(o.execution ? { execution: o.execution } : {}),
      operation: o.operation,
      failure_kind: o.failureKind,
      reason: o.reason,
      attempt: o.attempt,
      ...(o.executionReason ? { execution_reason: o.executionReason } : {}),
    }),
    metadata: (o) =>
      o.execution && o.timing ? executionMetadata(o.execution, o.timing) : undefined,
  },
  finalized: {
    applied: (o) => failing('CleanupConfirmed', o.message),
    available: (o) => failing('CleanupConfirmed', o.message),
    health: () => HEALTHY,
    finalized: (o) => ['True', 'CleanupConfirmed', o.message],
    data: (o) => ({ execution: o.execution, operation: 'delete' }),
    metadata: (o) => executionMetadata(o.execution, o.timing),
  },
};

/** The queued row's message. */
function queuedMessage(o: OutcomeOf['queued']): string {
  const background = o.kept ? ' (the pull secret stays in place meanwhile)' : '';
  return `Launch queued as task ${shortName(o.task)} to ${purpose(o.operation)} the pull secret${background}`;
}

/** The Available message: where the pull secret is; the platform default is said as such. */
function provisionedMessage(p: Provisioned): string {
  const k = p.kubernetesSecret;
  const pushed = k
    ? `pushed to Secret ${k.namespace}/${k.name}${k.managementCluster ? ` on management cluster ${k.managementCluster}` : ''}`
    : '';
  if (p.secretVersion === undefined)
    return `The platform default pull secret${p.defaultVersion ? ` (version ${p.defaultVersion})` : ''} is in use${pushed ? `, ${pushed}` : ''} (not copied to the tenant project: ${p.secretPath} holds no version of it)`;
  const source =
    p.pullSecretSource === 'platform-default'
      ? ` (the platform default${p.defaultVersion ? `, version ${p.defaultVersion}` : ''})`
      : '';
  return `Pull secret${source} stored in ${p.secretPath}/versions/${p.secretVersion}${pushed ? ` and ${pushed}` : ''}`;
}

/** A success's `data`: where the pull secret is, in Secret Manager and on the management cluster. */
function provisionedData(execution: string, p: Provisioned): Record<string, unknown> {
  const k = p.kubernetesSecret;
  return {
    execution,
    operation: 'apply',
    secret_path: p.secretPath,
    ...(p.secretVersion !== undefined ? { secret_version: p.secretVersion } : {}),
    ...(p.pullSecretSource ? { pull_secret_source: p.pullSecretSource } : {}),
    ...(p.defaultVersion ? { default_version: p.defaultVersion } : {}),
    ...(k ? kubernetesSecretData(k) : {}),
    ...(p.sha256Prefix ? { pull_secret_sha256_prefix: p.sha256Prefix } : {}),
  };
}

/**
 * Where the Kubernetes Secret is, in the keys the HyperShift adapter reads (a contract: docs/status-contract.md,
 * "The status data contract (what the HyperShift adapter reads)"; pinned by test/unit/shared/status-data-contract.test.ts). `namespace` is the
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
    // Not HyperShift's: the adapter reads it to launch a migration's remove-previous phase.
    ...(k.previousLayoutNamespace ? { previous_layout_namespace: k.previousLayoutNamespace } : {}),
  };
}

/**
 * The keys of a success's `data` that say where the pull secret is: what a background run keeps
 * (KeptConvergence) so HyperShift never reads a converged cluster without its place.
 */
export const PLACE_DATA_KEYS = [
  'secret_path',
  'secret_version',
  'pull_secret_source',
  'default_version',
  'management_cluster',
  'namespace',
  'pull_secret_name',
  'kubernetes_secret',
  'previous_layout_namespace',
  'pull_secret_sha256_prefix',
] as const;

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
