import type { Logger, LogFields } from '../logging/logger';
import type { IncomingCloudEvent } from './decode';
import { FailureCounter } from './failure-counter';
import {
  checkEventAge,
  checkFailureCount,
  type RetryBoundDecision,
  type RetryBoundSettings,
} from './retry-bound';

type Handler = (incoming: IncomingCloudEvent) => Promise<void>;

export interface BoundedRetryOptions {
  readonly settings: RetryBoundSettings;
  readonly logger: Logger;
  /** Fields identifying what the event is about (e.g. cluster_id), when they can be read. */
  readonly describe?: (incoming: IncomingCloudEvent) => LogFields;
  readonly now?: () => Date;
  readonly counter?: FailureCounter;
}

/** The Pub/Sub message inside a messagePublished event, as far as the bound needs it. */
function pubsubMessage(incoming: IncomingCloudEvent): { messageId?: string; publishTime?: string } {
  const data = incoming.data;
  if (data === null || typeof data !== 'object' || !('message' in data)) return {};
  const message = (data as { message: unknown }).message;
  if (message === null || typeof message !== 'object') return {};
  const { messageId, publishTime } = message as Record<string, unknown>;
  return {
    ...(typeof messageId === 'string' ? { messageId } : {}),
    ...(typeof publishTime === 'string' ? { publishTime } : {}),
  };
}

/**
 * Wraps a handler so retries of one event stay bounded (see retry-bound.ts): an event older than
 * EVENT_MAX_AGE is acknowledged without handling, and one that failed EVENT_MAX_FAILURES times in
 * this instance is acknowledged instead of thrown. Either way one ERROR line with
 * `decision: "retry-bound-exceeded"` says why; a log-based metric counts those lines and alerts.
 */
export function withBoundedRetries(handler: Handler, options: BoundedRetryOptions): Handler {
  const counter = options.counter ?? new FailureCounter();
  const now = options.now ?? (() => new Date());
  const giveUp = (
    incoming: IncomingCloudEvent,
    messageId: string,
    publishTime: string | undefined,
    decision: Extract<RetryBoundDecision, { kind: 'exceeded' }>,
    error?: unknown,
  ) => {
    let described: LogFields = {};
    try {
      described = options.describe?.(incoming) ?? {};
    } catch {
      // Identifying fields are a courtesy; the line must be written anyway.
    }
    const cause =
      error === undefined
        ? ''
        : ` Last error: ${error instanceof Error ? error.message : String(error)}.`;
    options.logger.error(
      `Gave up on message ${messageId}: ${decision.detail}. It is acknowledged, so it is not delivered again.${cause}`,
      {
        ...described,
        decision: 'retry-bound-exceeded',
        reason: decision.reason,
        message_id: messageId,
        ...(publishTime !== undefined ? { publish_time: publishTime } : {}),
      },
    );
  };

  return async (incoming) => {
    const message = pubsubMessage(incoming);
    const messageId = message.messageId ?? incoming.id ?? '';
    const publishTime = message.publishTime ?? incoming.time;
    const age = checkEventAge(publishTime, now(), options.settings);
    if (age.kind === 'exceeded') {
      giveUp(incoming, messageId, publishTime, age);
      return;
    }
    try {
      await handler(incoming);
    } catch (error) {
      // Without an id every delivery looks new: only the age bound can end it.
      if (messageId === '') throw error;
      const failures = checkFailureCount(counter.recordFailure(messageId), options.settings);
      if (failures.kind === 'within-bounds') throw error;
      counter.forget(messageId);
      giveUp(incoming, messageId, publishTime, failures, error);
      return;
    }
    if (messageId !== '') counter.forget(messageId);
  };
}
