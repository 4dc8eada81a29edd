import type { ExecutionReader } from '../../../shared/executions/execution-reader';
import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import type { Logger } from '../../../shared/logging/logger';
import type { NamespaceLayout } from '../../../shared/pull-secret/namespace-layout';
import type { DecisionSettings } from '../decision/decision';
import type { PullSecretSettings } from '../../../shared/pull-secret/pull-secret-reference';
import type { CompiledPrecondition } from '../decision/preconditions';
import type { CompiledDriftCondition } from '../decision/drift-condition';
import type { LaunchQueue } from '../launch-queue/launch-queue';

/** What the handler needs; the entry file builds it once per instance. */
export interface AdapterDependencies {
  readonly hyperfleet: HyperFleetApi;
  /** The launch queue, its name (LAUNCH_QUEUE) and the job its tasks run (PULL_SECRET_JOB). */
  readonly launchQueue: {
    readonly queue: LaunchQueue;
    readonly name: string;
    /** LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER: a placed cluster's launches go to its own queue. */
    readonly perManagementCluster?: boolean;
    readonly jobName: string;
  };
  /** GetExecution, off the happy path: an execution silent for longer than EXECUTION_CHECK_AFTER. */
  readonly lookup: ExecutionReader;
  readonly preconditions: readonly CompiledPrecondition[];
  /** DRIFT_REPORTED_CONDITION; absent: drift reports are not acted on (only the resync repairs). */
  readonly driftCondition?: CompiledDriftCondition;
  readonly settings: DecisionSettings;
  readonly pullSecret: PullSecretSettings;
  /** The operator's namespace layout; `clusters-{id}` when absent. */
  readonly namespaceLayout?: NamespaceLayout;
  readonly logger: Logger;
  readonly now?: () => Date;
}
