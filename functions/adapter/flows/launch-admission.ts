import { TransientError } from '../../../shared/errors';
import { retryFitsDelivery } from '../../../shared/events/delivery-deadline';
import type { Logger } from '../../../shared/logging/logger';
import { sleep as realSleep } from '../../../shared/sleep';
import { launchPriority, type LaunchRate, type LaunchPriority } from '../cloud-run/launch-rate';
import type { AdapterDependencies } from './dependencies';

/**
 * What a launch still needs from the delivery once it has its token: the intent's write, the
 * settle wait, its read-back and RunJob. A wait for a token that leaves less is not started.
 */
const AFTER_TOKEN_MS = 2_000;

/** New work found no launch budget in time: the event goes back to Pub/Sub, which redelivers. */
export class LaunchDeferred extends TransientError {
  constructor(waitMs: number) {
    super(
      `No launch budget for ${Math.ceil(waitMs / 1000)} s (LAUNCH_RATE_PER_MINUTE, or a RESOURCE_EXHAUSTED pause); the launch is left to the event's redelivery`,
      'LaunchRateLimited',
    );
  }
}

/** Takes a token, waiting for one only while the wait fits LAUNCH_RATE_MAX_WAIT and the delivery. */
export async function takeToken(
  rate: LaunchRate,
  priority: LaunchPriority,
  options: { maxWaitMs: number; reserveMs: number; sleep: (ms: number) => Promise<void> },
): Promise<{ kind: 'granted' } | { kind: 'deferred'; waitMs: number }> {
  let waited = 0;
  for (;;) {
    const admission = rate.take(priority);
    if (admission.kind === 'granted') return admission;
    const { ms } = admission;
    if (waited + ms > options.maxWaitMs || !retryFitsDelivery(ms + options.reserveMs))
      return { kind: 'deferred', waitMs: ms };
    await options.sleep(ms);
    waited += ms;
  }
}

/**
 * Whether this launch goes ahead now, before anything is written: true with a token taken. A
 * background launch (resync, drift-reported) without budget returns false: the event is
 * acknowledged quietly and the cluster's next event tries again. New work without budget throws
 * LaunchDeferred, so Pub/Sub redelivers it with its backoff.
 */
export async function admitLaunch(
  reason: string,
  deps: AdapterDependencies,
  log: Logger,
): Promise<boolean> {
  if (!deps.launchRate) return true;
  const priority = launchPriority(reason);
  const taken = await takeToken(deps.launchRate, priority, {
    maxWaitMs: deps.launchRateMaxWaitMs ?? 0,
    reserveMs: (deps.launchSettleMs ?? 0) + AFTER_TOKEN_MS,
    sleep: deps.sleep ?? realSleep,
  });
  if (taken.kind === 'granted') return true;
  if (priority === 'new-work') throw new LaunchDeferred(taken.waitMs);
  log.info(
    `Launch (${reason}) deferred: new work has the launch budget for the next ${Math.ceil(taken.waitMs / 1000)} s; the next event for this cluster tries again`,
    { decision: 'launch-deferred', reason, wait_ms: taken.waitMs },
  );
  return false;
}
