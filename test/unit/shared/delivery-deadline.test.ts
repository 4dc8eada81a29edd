import {
  callTimeoutMs,
  deliveryRemainingMs,
  DeliveryDeadlineExceeded,
  withDeliveryDeadline,
} from '../../../shared/events/delivery-deadline';
import { withRetry } from '../../../shared/retry/with-retry';

// Issue 29 §1: every delivery is answered within Eventarc's 10 s by design. Calls are cut to what
// the delivery has left, and no retry starts that cannot end in time.
describe('the delivery deadline', () => {
  it('cuts a call timeout to what the delivery has left, and nothing outside a delivery', async () => {
    expect(callTimeoutMs(30_000, 'RunJob')).toBe(30_000);
    expect(deliveryRemainingMs()).toBeUndefined();
    await withDeliveryDeadline(2_000, async () => {
      const cut = callTimeoutMs(30_000, 'RunJob');
      expect(cut).toBeLessThanOrEqual(2_000);
      expect(cut).toBeGreaterThan(1_500);
      expect(callTimeoutMs(500, 'GET /clusters/x')).toBe(500);
    });
  });

  it('refuses to start a call with less than MIN_CALL_MS left: a transient error, so the event is redelivered', async () => {
    await withDeliveryDeadline(0, async () => {
      const error = (() => {
        try {
          callTimeoutMs(30_000, 'RunJob');
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(DeliveryDeadlineExceeded);
      expect((error as DeliveryDeadlineExceeded).kind).toBe('transient');
      expect((error as Error).message).toMatch(/RunJob.*next delivery.*DELIVERY_BUDGET/);
    });
  });

  it('starts no retry whose wait would outlast the delivery; the last error goes back unchanged', async () => {
    const failure = new Error('503');
    let attempts = 0;
    const sleeps: number[] = [];
    const run = () =>
      withRetry(
        async () => {
          attempts++;
          throw failure;
        },
        {
          policy: { attempts: 5, baseDelayMs: 1_000, maxDelayMs: 1_000 },
          isRetryable: () => true,
          random: () => 1,
          sleep: async (ms) => void sleeps.push(ms),
        },
      );
    await expect(withDeliveryDeadline(800, run)).rejects.toBe(failure);
    expect(attempts).toBe(1);
    expect(sleeps).toEqual([]);
    attempts = 0;
    await expect(withDeliveryDeadline(60_000, run)).rejects.toBe(failure);
    expect(attempts).toBe(5);
    expect(sleeps).toEqual([1_000, 1_000, 1_000, 1_000]);
  });
});
