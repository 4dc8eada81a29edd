import { KeyedMutex } from '../../../shared/concurrency/keyed-mutex';
import { AdapterError } from '../../../shared/errors';
import { decodeIncomingEvent, type IncomingCloudEvent } from '../../../shared/events/decode';
import { logIfApiMisconfigured } from '../../../shared/hyperfleet/misconfiguration';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { SpanKind, errorType, withSpan } from '../../../shared/tracing/spans';
import { contextFromTraceparent } from '../../../shared/tracing/traceparent';
import type { AdapterDependencies } from './dependencies';
import { reconcileCluster } from './reconcile';

/**
 * Builds the CloudEvent handler. It returns normally (the message is acknowledged) when the event
 * was handled or can never succeed; it throws only for transient failures, so Pub/Sub redelivers
 * with backoff and dead-letters after the configured attempts.
 */
export function createAdapterHandler(
  deps: AdapterDependencies,
): (incoming: IncomingCloudEvent) => Promise<void> {
  const locks = new KeyedMutex();
  const now = deps.now ?? (() => new Date());
  return async (incoming) => {
    const decoded = decodeIncomingEvent(incoming);
    if (decoded.kind === 'malformed') {
      deps.logger.warn(
        `Discarded a malformed event: ${decoded.problem}. It is acknowledged because it can never succeed.`,
        { event_id: incoming.id ?? '', event_type: incoming.type ?? '', decision: 'malformed' },
      );
      return;
    }
    if (decoded.kind === 'ignored') {
      deps.logger.debug(`Ignored event: ${decoded.reason}`, {
        event_id: incoming.id ?? '',
        event_type: decoded.type,
        decision: 'ignored',
      });
      return;
    }
    const event = decoded.event;
    const log = deps.logger.child({
      event_id: event.eventId,
      cluster_id: event.clusterId,
      ...(event.generation !== undefined ? { event_generation: event.generation } : {}),
    });
    // One trace per reconcile, continuing Sentinel's (a new one when the event carries none).
    const parent = contextFromTraceparent(decoded.trace.traceparent, decoded.trace.tracestate);
    const rootAttributes = {
      [TRACE_ATTRIBUTES.clusterId]: event.clusterId,
      ...(event.generation !== undefined
        ? { [TRACE_ATTRIBUTES.generation]: event.generation }
        : {}),
    };
    await withSpan(
      'adapter.handle',
      rootAttributes,
      (root) =>
        locks.run(event.clusterId, async () => {
          if (decoded.trace.ignored)
            log.debug(`Trace context not continued: ${decoded.trace.ignored}`);
          try {
            await reconcileCluster(event, deps, log, now, root);
          } catch (error) {
            if (error instanceof AdapterError && error.kind === 'permanent') {
              // Retrying cannot help (e.g. the API refused our report, credentials are wrong); Sentinel re-sends anyway.
              root.setAttributes(failureAttributes('failed', error.reason));
              log.error(`Event handling failed permanently: ${error.message}`, {
                reason: error.reason,
                decision: 'failed',
              });
              return;
            }
            root.setAttributes(failureAttributes('retry', errorType(error)));
            if (logIfApiMisconfigured(error, log)) throw error;
            log.warn(
              `Event handling failed transiently and will be redelivered: ${error instanceof Error ? error.message : String(error)}`,
              { decision: 'retry' },
            );
            throw error;
          }
        }),
      { kind: SpanKind.CONSUMER, parent },
    );
  };
}

/** Replaces the decision's attributes when handling fails (the reason a code, never a message). */
const failureAttributes = (decision: string, reason: string) => ({
  [TRACE_ATTRIBUTES.decision]: decision,
  [TRACE_ATTRIBUTES.reason]: reason,
});
