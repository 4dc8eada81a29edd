import type { Operation } from '../../../shared/status/outcome';
import type { ExecutionSummary } from '../../../shared/executions/execution-reader';
import type { LaunchedExecution } from './job-launcher';

/** Which launch to look for among the job's executions. */
export interface LaunchQuery {
  readonly launchId: string;
  readonly clusterId: string;
  readonly generation: number;
  readonly operation: Operation;
  readonly attempt: number;
  /** When the intent was recorded: executions created well before cannot be this launch. */
  readonly since: string;
}

/**
 * Reads Cloud Run's executions, only off the happy path: to resolve an ambiguous launch and to
 * check an execution that has been silent too long.
 */
export interface ExecutionLookup {
  /** The execution started for this launch, if any (ListExecutions, newest first, stops early). */
  findLaunched(query: LaunchQuery): Promise<LaunchedExecution | undefined>;
  /** The execution's current state (GetExecution); undefined when it does not exist. */
  read(execution: string): Promise<ExecutionSummary | undefined>;
}

/** How an execution's overrides relate to a launch. */
export type LaunchMatch = 'launch-id' | 'same-work' | 'none';

/**
 * Matches an execution's env (its template, which carries RunJob's overrides) against a launch:
 * our LAUNCH_ID, or else the same cluster, generation, operation and attempt (a launch of another
 * instance for the same work, or one from before launch ids existed). Pure.
 */
export function matchLaunch(
  env: Readonly<Record<string, string>>,
  query: LaunchQuery,
): LaunchMatch {
  if (env.LAUNCH_ID === query.launchId) return 'launch-id';
  const sameWork =
    env.CLUSTER_ID === query.clusterId &&
    env.GENERATION === String(query.generation) &&
    (env.OPERATION ?? 'apply') === query.operation &&
    env.LAUNCH_ATTEMPT === String(query.attempt);
  return sameWork ? 'same-work' : 'none';
}
