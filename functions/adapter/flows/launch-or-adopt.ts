import { AdapterError } from '../../../shared/errors';
import type { Logger } from '../../../shared/logging/logger';
import { backoffDelayMs, type RetryPolicy } from '../../../shared/retry/backoff';
import type { ExecutionLookup, LaunchQuery } from '../cloud-run/execution-lookup';
import type { JobLauncher, LaunchedExecution, LaunchRequest } from '../cloud-run/job-launcher';
import type { LaunchRate } from '../cloud-run/launch-rate';
import { sleep as realSleep } from '../../../shared/sleep';

/** What launchOrAdopt needs. */
export interface LaunchDependencies {
  readonly launcher: JobLauncher;
  readonly lookup: ExecutionLookup;
  readonly retry: RetryPolicy;
  readonly logger: Logger;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Told of quota refusals and successes; every in-process retry takes a token from it too. */
  readonly rate?: LaunchRate;
}

/** RunJob refused for quota (RESOURCE_EXHAUSTED, HTTP 429): see toAdapterError. */
export function isQuotaExceeded(error: unknown): boolean {
  return error instanceof AdapterError && error.reason === 'QuotaExceeded';
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
 *
 * A quota refusal (RESOURCE_EXHAUSTED) is rethrown at once: the quota is checked before the request
 * is handled, so nothing was created and there is nothing to search for, and a retry within the
 * same minute would only be refused again and spend quota others need. The instance's launch rate
 * pauses instead; the caller leaves the launch to the event's redelivery (launch-flow.ts).
 */
export async function launchOrAdopt(
  request: LaunchRequest,
  since: string,
  deps: LaunchDependencies,
): Promise<LaunchResult> {
  const sleep = deps.sleep ?? realSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      const launched = await deps.launcher.launch(request);
      deps.rate?.succeeded();
      return { ...launched, adopted: false };
    } catch (error) {
      if (error instanceof AdapterError && error.kind === 'permanent') throw error;
      if (isQuotaExceeded(error)) {
        const pauseMs = deps.rate?.exhausted();
        deps.logger.warn('Cloud Run refused RunJob for quota; launches pause', {
          cluster_id: request.clusterId,
          decision: 'quota-exceeded',
          ...(pauseMs !== undefined ? { pause_ms: pauseMs } : {}),
        });
        throw error;
      }
      const found = await deps.lookup.findLaunched(launchQuery(request, since));
      if (found) {
        deps.logger.warn(
          `RunJob failed but execution ${found.execution} of launch ${request.launchId} exists; adopting it instead of launching again`,
          { cluster_id: request.clusterId, execution: found.execution, decision: 'adopt' },
        );
        return { ...found, adopted: true };
      }
      if (attempt >= deps.retry.attempts) throw error;
      // Another RunJob spends quota like the first: without a token the redelivery retries.
      if (deps.rate && deps.rate.take('new-work').kind !== 'granted') throw error;
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
