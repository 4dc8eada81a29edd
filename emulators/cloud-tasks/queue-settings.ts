import {
  checkRateLimits,
  checkRetryConfig,
  DEFAULT_RATE,
  DEFAULT_RETRY,
  type RateLimits,
  type RetryConfig,
} from './rules';
import { toMs, type QueueInput } from './wire';

/** A queue's settings, as CreateQueue and UpdateQueue change them. */
export interface QueueSettings {
  readonly rate: RateLimits;
  readonly retry: RetryConfig;
}

type Leaf = keyof RateLimits | keyof RetryConfig;

/** Each settable field: its FieldMask path, where it is in a Queue, and its default. */
const LEAVES: readonly {
  readonly path: string;
  readonly key: Exclude<Leaf, 'maxBurstSize'>;
  readonly read: (queue: QueueInput) => number | undefined;
}[] = [
  {
    path: 'rate_limits.max_dispatches_per_second',
    key: 'maxDispatchesPerSecond',
    read: (q) => q.rate_limits?.max_dispatches_per_second,
  },
  {
    path: 'rate_limits.max_concurrent_dispatches',
    key: 'maxConcurrentDispatches',
    read: (q) => q.rate_limits?.max_concurrent_dispatches,
  },
  {
    path: 'retry_config.max_attempts',
    key: 'maxAttempts',
    read: (q) => q.retry_config?.max_attempts,
  },
  {
    path: 'retry_config.max_retry_duration',
    key: 'maxRetryDurationMs',
    read: (q) =>
      q.retry_config?.max_retry_duration ? toMs(q.retry_config.max_retry_duration) : undefined,
  },
  {
    path: 'retry_config.min_backoff',
    key: 'minBackoffMs',
    read: (q) => (q.retry_config?.min_backoff ? toMs(q.retry_config.min_backoff) : undefined),
  },
  {
    path: 'retry_config.max_backoff',
    key: 'maxBackoffMs',
    read: (q) => (q.retry_config?.max_backoff ? toMs(q.retry_config.max_backoff) : undefined),
  },
  {
    path: 'retry_config.max_doublings',
    key: 'maxDoublings',
    read: (q) => q.retry_config?.max_doublings,
  },
];

const DEFAULTS: Record<Exclude<Leaf, 'maxBurstSize'>, number> = {
  ...DEFAULT_RATE,
  ...DEFAULT_RETRY,
};

/**
 * The settings after CreateQueue (`base` undefined: every unset field takes Cloud Tasks' default)
 * or UpdateQueue on `base`. UpdateQueue's mask: "A mask used to specify which fields of the queue
 * are being updated. If empty, then all fields will be updated." A field named in the mask (or
 * under a named message) takes the request's value, or the default when the request leaves it
 * unset; without a mask the emulator updates the fields the request sets and keeps the others
 * (the reading that never resets a setting the caller did not mention). max_burst_size is output
 * only and always derived again. Validated as Cloud Tasks validates (rules.ts).
 */
export function queueSettings(
  input: QueueInput,
  base: QueueSettings | undefined,
  maskPaths: readonly string[] = [],
): QueueSettings {
  const values: Record<string, number> = { ...DEFAULTS, ...base?.rate, ...base?.retry };
  for (const leaf of LEAVES) {
    const parent = leaf.path.split('.')[0]!;
    const value = leaf.read(input);
    const masked = maskPaths.includes(leaf.path) || maskPaths.includes(parent);
    if (base === undefined || (maskPaths.length === 0 && value !== undefined))
      values[leaf.key] = value ?? DEFAULTS[leaf.key];
    else if (masked) values[leaf.key] = value ?? DEFAULTS[leaf.key];
  }
  const rate = checkRateLimits({
    maxDispatchesPerSecond: values.maxDispatchesPerSecond!,
    maxConcurrentDispatches: values.maxConcurrentDispatches!,
  });
  const retry = checkRetryConfig({
    maxAttempts: values.maxAttempts!,
    maxRetryDurationMs: values.maxRetryDurationMs!,
    minBackoffMs: values.minBackoffMs!,
    maxBackoffMs: values.maxBackoffMs!,
    maxDoublings: values.maxDoublings!,
  });
  return { rate, retry };
}
