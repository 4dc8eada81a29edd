import { withBoundedRetries } from '../../../shared/events/bounded-retries';
import { FailureCounter } from '../../../shared/events/failure-counter';
import {
  checkEventAge,
  checkFailureCount,
  type RetryBoundSettings,
} from '../../../shared/events/retry-bound';
import { RecordingLogger } from '../../helpers/recording-logger';

const settings: RetryBoundSettings = { maxAgeMs: 30 * 60_000, maxFailures: 3 };
const now = new Date('2026-11-23T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();

describe('checkEventAge', () => {
  it.each([
    ['just published', ago(0), 'within-bounds'],
    ['29 minutes old', ago(29 * 60_000), 'within-bounds'],
    ['exactly the maximum age', ago(30 * 60_000), 'within-bounds'],
    ['a millisecond past the maximum age', ago(30 * 60_000 + 1), 'exceeded'],
    ['hours old', ago(3 * 3600_000), 'exceeded'],
    ['in the future (clock skew)', ago(-5 * 60_000), 'within-bounds'],
    ['unreadable', 'yesterday', 'within-bounds'],
    ['unknown', undefined, 'within-bounds'],
  ])('%s: %s', (_what, publishTime, kind) => {
    expect(checkEventAge(publishTime, now, settings).kind).toBe(kind);
  });

  it('says how old the event is and which bound it passed', () => {
    expect(checkEventAge(ago(2 * 3600_000), now, settings)).toEqual({
      kind: 'exceeded',
      reason: 'age',
      detail: `published ${ago(2 * 3600_000)}, 120 min ago, older than EVENT_MAX_AGE (30 min)`,
    });
  });
});

describe('checkFailureCount', () => {
  it.each([
    [1, 'within-bounds'],
    [2, 'within-bounds'],
    [3, 'exceeded'],
    [4, 'exceeded'],
  ])('after failure %i of at most 3: %s', (failures, kind) => {
    expect(checkFailureCount(failures, settings).kind).toBe(kind);
  });

  it('names the bound', () => {
    expect(checkFailureCount(3, settings)).toEqual({
      kind: 'exceeded',
      reason: 'failures',
      detail: 'failed 3 times in this instance, the EVENT_MAX_FAILURES bound (3)',
    });
  });
});

describe('FailureCounter', () => {
  it('counts per id, forgets on success, and evicts the least recently failed id first', () => {
    const counter = new FailureCounter(2);
    expect(counter.recordFailure('a')).toBe(1);
    expect(counter.recordFailure('b')).toBe(1);
    expect(counter.recordFailure('a')).toBe(2);
    expect(counter.recordFailure('c')).toBe(1); // evicts b, the least recent
    expect(counter.size).toBe(2);
    expect(counter.recordFailure('b')).toBe(1);
    expect(counter.recordFailure('c')).toBe(2);
    counter.forget('c');
    expect(counter.recordFailure('c')).toBe(1);
  });

  it('refuses a capacity below 1', () => {
    expect(() => new FailureCounter(0)).toThrow(/at least 1/);
  });
});

describe('withBoundedRetries', () => {
  const event = (messageId: string, publishTime: string) => ({
    id: messageId,
    type: 'google.cloud.pubsub.topic.v1.messagePublished',
    time: publishTime,
    data: { message: { data: 'e30=', messageId, publishTime } },
  });
  const failing = () => Promise.reject(new Error('HyperFleet API answered 503'));

  it('throws until the bound, then acknowledges with one ERROR line naming the message and cluster', async () => {
    const logger = new RecordingLogger();
    const handle = withBoundedRetries(failing, {
      settings,
      logger,
      now: () => now,
      describe: () => ({ cluster_id: 'cls-1' }),
    });
    await expect(handle(event('m-1', ago(1000)))).rejects.toThrow('503');
    await expect(handle(event('m-1', ago(1000)))).rejects.toThrow('503');
    await expect(handle(event('m-1', ago(1000)))).resolves.toBeUndefined();
    const errors = logger.lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.fields).toEqual({
      cluster_id: 'cls-1',
      decision: 'retry-bound-exceeded',
      reason: 'failures',
      message_id: 'm-1',
      publish_time: ago(1000),
    });
    expect(errors[0]!.message).toContain('Last error: HyperFleet API answered 503');
  });

  it('acknowledges an old event at once without handling it', async () => {
    const logger = new RecordingLogger();
    let handled = 0;
    const handle = withBoundedRetries(
      async () => {
        handled++;
      },
      { settings, logger, now: () => now },
    );
    await handle(event('m-old', ago(5 * 3600_000)));
    expect(handled).toBe(0);
    expect(logger.lines).toEqual([
      expect.objectContaining({
        level: 'error',
        fields: expect.objectContaining({ reason: 'age', message_id: 'm-old' }),
      }),
    ]);
  });

  it('counts failures per message and starts over after a success', async () => {
    const logger = new RecordingLogger();
    let fail = true;
    const handle = withBoundedRetries(() => (fail ? failing() : Promise.resolve()), {
      settings,
      logger,
      now: () => now,
    });
    await expect(handle(event('m-2', ago(0)))).rejects.toThrow();
    await expect(handle(event('m-3', ago(0)))).rejects.toThrow();
    await expect(handle(event('m-2', ago(0)))).rejects.toThrow();
    fail = false;
    await handle(event('m-2', ago(0)));
    fail = true;
    await expect(handle(event('m-2', ago(0)))).rejects.toThrow();
    expect(logger.lines).toEqual([]);
  });

  it('keeps throwing an event without an id (only its age can end it)', async () => {
    const handle = withBoundedRetries(failing, {
      settings: { ...settings, maxFailures: 1 },
      logger: new RecordingLogger(),
      now: () => now,
    });
    await expect(handle({ type: 'x', data: {} })).rejects.toThrow('503');
  });
});
