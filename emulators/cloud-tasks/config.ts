import * as z from 'zod';
import { parseDurationMs } from '../../shared/config/durations';
import type { QueueInput } from './wire';

const durationText = z.string().refine((text) => parseDurationMs(text) !== undefined, {
  message: 'must be a duration such as 100ms, 10s, 5m or 1h',
});

/**
 * A queue the emulator creates at start, as Terraform's google_cloud_tasks_queue declares one
 * (rate_limits, retry_config): the local stack's launch queue. Unset fields take Cloud Tasks'
 * defaults, as with CreateQueue.
 */
export const queueSeedSchema = z.strictObject({
  name: z.string().min(1),
  rateLimits: z
    .strictObject({
      maxDispatchesPerSecond: z.number().positive().optional(),
      maxConcurrentDispatches: z.number().int().positive().optional(),
    })
    .optional(),
  retryConfig: z
    .strictObject({
      maxAttempts: z.number().int().min(-1).optional(),
      maxRetryDuration: durationText.optional(),
      minBackoff: durationText.optional(),
      maxBackoff: durationText.optional(),
      maxDoublings: z.number().int().min(0).optional(),
    })
    .optional(),
});
export type QueueSeed = z.infer<typeof queueSeedSchema>;

/** `npm run emulators -- cloud-tasks --config FILE`: the queues to create, and the dedupe window. */
export const cloudTasksConfigSchema = z.strictObject({
  queues: z.array(queueSeedSchema).default([]),
  /** How long a deleted or finished task's name stays taken (default 1h, as Cloud Tasks). */
  taskTombstone: durationText.optional(),
});
export type CloudTasksConfig = z.infer<typeof cloudTasksConfigSchema>;

const duration = (text: string | undefined) => {
  const ms = text === undefined ? undefined : parseDurationMs(text);
  return ms === undefined
    ? undefined
    : { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 };
};

/** A seed as the Queue message CreateQueue takes (so it passes the same rules). */
export function queueOfSeed(seed: QueueSeed): QueueInput {
  const retry = seed.retryConfig;
  return {
    name: seed.name,
    rate_limits: {
      ...(seed.rateLimits?.maxDispatchesPerSecond !== undefined
        ? { max_dispatches_per_second: seed.rateLimits.maxDispatchesPerSecond }
        : {}),
      ...(seed.rateLimits?.maxConcurrentDispatches !== undefined
        ? { max_concurrent_dispatches: seed.rateLimits.maxConcurrentDispatches }
        : {}),
    },
    retry_config: {
      ...(retry?.maxAttempts !== undefined ? { max_attempts: retry.maxAttempts } : {}),
      ...(retry?.maxDoublings !== undefined ? { max_doublings: retry.maxDoublings } : {}),
      ...(duration(retry?.maxRetryDuration)
        ? { max_retry_duration: duration(retry?.maxRetryDuration) }
        : {}),
      ...(duration(retry?.minBackoff) ? { min_backoff: duration(retry?.minBackoff) } : {}),
      ...(duration(retry?.maxBackoff) ? { max_backoff: duration(retry?.maxBackoff) } : {}),
    },
  };
}
