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
 * Whether this launch goes ahead now, before anything is written: true with a token taken. A launch
 * without budget returns false and the event is acknowledged with one info line: Sentinel re-sends
 * a cluster that is not reconciled every few seconds (a reconciled one every 30 min), so the next
 * event launches it, new work first (launch-rate.ts). Not a failure answered for redelivery: every
 * Sentinel re-send would then be redelivered by Pub/Sub as well, several deliveries (each two
 * HyperFleet reads) per re-send for as long as the backlog lasts (measured in the fleet burst).
 */
export async function admitLaunch(
  reason: string,
  deps: AdapterDependencies,
  log: Logger,
): Promise<boolean> {
  if (!deps.launchRate) return true;
  const taken = await takeToken(deps.launchRate, launchPriority(reason), {
    maxWaitMs: deps.launchRateMaxWaitMs ?? 0,
    reserveMs: (deps.launchSettleMs ?? 0) + AFTER_TOKEN_MS,
    sleep: deps.sleep ?? realSleep,
  });
  if (taken.kind === 'granted') return true;
  log.info(
    `Launch (${reason}) deferred: no launch budget for ${Math.ceil(taken.waitMs / 1000)} s (LAUNCH_RATE_PER_MINUTE); the cluster's next event launches it`,
    { decision: 'launch-deferred', reason, wait_ms: taken.waitMs },
  );
  return false;
}
