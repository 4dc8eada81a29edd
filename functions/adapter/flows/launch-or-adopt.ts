import { AdapterError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import { backoffDelayMs, type RetryPolicy } from '../../../shared/retry/backoff';
import type { ExecutionLookup, LaunchQuery } from '../cloud-run/execution-lookup';
import type { JobLauncher, LaunchedExecution, LaunchRequest } from '../cloud-run/job-launcher';
import { sleep as realSleep } from '../../../shared/sleep';

/** What launchOrAdopt needs. */
export interface LaunchDependencies {
  readonly launcher: JobLauncher;
  readonly lookup: ExecutionLookup;
  readonly retry: RetryPolicy;
  readonly logger: Logger;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** The launch's execution, and whether it was found rather than started by our call. */
export interface LaunchResult extends LaunchedExecution {
  readonly adopted: boolean;
}

/** The search for a launch's execution. */
export function launchQuery(
  request: Pick<LaunchRequest, 'launchId' | 'clusterId' | 'generation' | 'operation' | 'attempt'>,
  since: string,
): LaunchQuery {
  return {
    launchId: request.launchId,
    clusterId: request.clusterId,
    generation: request.generation,
    operation: request.operation,
    attempt: request.attempt,
    since,
  };
}

/**
 * Starts the execution for a launch exactly once, as far as Cloud Run lets us know: a clean RunJob
 * is the only Cloud Run call. A transient failure is ambiguous (the network may have lost the
 * answer of a RunJob that created the execution), so before every retry the job's executions are
 * searched for this launch and a found one is adopted. Permanent failures and the last transient
 * one are rethrown.
 */
export async function launchOrAdopt(
  request: LaunchRequest,
  since: string,
  deps: LaunchDependencies,
): Promise<LaunchResult> {
  const sleep = deps.sleep ?? realSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return { ...(await deps.launcher.launch(request)), adopted: false };
    } catch (error) {
      if (error instanceof AdapterError && error.kind === 'permanent') throw error;
      const found = await deps.lookup.findLaunched(launchQuery(request, since));
      if (found) {
        deps.logger.warn(
          `RunJob failed but execution ${found.execution} of launch ${request.launchId} exists; adopting it instead of launching again`,
          { cluster_id: request.clusterId, execution: found.execution, decision: 'adopt' },
        );
        return { ...found, adopted: true };
      }
      if (attempt >= deps.retry.attempts) throw error;
      const delayMs = backoffDelayMs(attempt, deps.retry);
      deps.logger.warn('Cloud Run RunJob failed and no execution of this launch exists; retrying', {
        cluster_id: request.clusterId,
        retry: attempt,
        delay_ms: delayMs,
        error: error instanceof Error ? error.message : String(error),
      });
      await sleep(delayMs);
    }
  }
}
