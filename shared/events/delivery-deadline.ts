import { AsyncLocalStorage } from 'node:async_hooks';
import { TransientError } from '../errors';

/**
 * The time one delivery may take. Eventarc's Pub/Sub subscription gives a delivery 10 seconds
 * (its ack deadline, which Terraform cannot change: hashicorp/terraform-provider-google#17701);
 * an answer later than that is too late: the event is redelivered, maybe to another instance,
 * while the first delivery is still working. So each function bounds its own work per delivery:
 * every call's timeout is cut to what the delivery has left, and no retry starts that cannot end
 * in time. What cannot finish is left to the next delivery (the launch intent and the job's claim
 * keep that exactly-once). Outside a delivery (tests, the job) nothing is cut.
 */
const deliveries = new AsyncLocalStorage<{ readonly endsAtMs: number }>();

/** The least time worth starting a call with: less, and the call is not started. */
export const MIN_CALL_MS = 250;

/** Runs one delivery's work with `budgetMs` to spend. */
export function withDeliveryDeadline<T>(
  budgetMs: number,
  work: () => Promise<T>,
  now: () => number = Date.now,
): Promise<T> {
  return deliveries.run({ endsAtMs: now() + budgetMs }, work);
}

/** Milliseconds the current delivery has left; undefined outside a delivery. */
export function deliveryRemainingMs(now: number = Date.now()): number | undefined {
  const delivery = deliveries.getStore();
  return delivery === undefined ? undefined : delivery.endsAtMs - now;
}

/** The delivery's time is spent: the event is answered with an error and redelivered. */
export class DeliveryDeadlineExceeded extends TransientError {
  constructor(what: string) {
    super(
      `No time left in this delivery for ${what}; the event is left to its next delivery (DELIVERY_BUDGET)`,
      'DeliveryDeadline',
    );
  }
}

/**
 * The timeout for one call: its configured timeout, cut to what the delivery has left. Throws
 * DeliveryDeadlineExceeded when less than MIN_CALL_MS is left.
 */
export function callTimeoutMs(configuredMs: number, what: string): number {
  const remaining = deliveryRemainingMs();
  if (remaining === undefined) return configuredMs;
  if (remaining < MIN_CALL_MS) throw new DeliveryDeadlineExceeded(what);
  return Math.min(configuredMs, remaining);
}

/** Whether a wait of `delayMs` followed by another call still fits in the delivery. */
export function retryFitsDelivery(delayMs: number): boolean {
  const remaining = deliveryRemainingMs();
  return remaining === undefined || remaining >= delayMs + MIN_CALL_MS;
}
