import type { PubSub, Topic } from '@google-cloud/pubsub';
import type { Logger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { withRetry } from '../../../shared/retry/with-retry';
import {
  RESULT_MESSAGE_TYPE,
  STARTED_MESSAGE_TYPE,
  type JobResult,
  type JobStarted,
} from '../../../shared/job-result';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { SpanKind, withSpan } from '../../../shared/tracing/spans';
import { currentTraceparent, currentTracestate } from '../../../shared/tracing/traceparent';
import { markPhaseFailed } from './job-trace';
import type { ResultPublisher } from './result-publisher';

/** One kind of message on the results topic: its `type`, span, log words and retry policy. */
interface MessageKind {
  readonly type: string;
  readonly span: string;
  readonly operation: string;
  readonly what: string;
  /** What happens when it is never published (the error log says it). */
  readonly fallback: string;
  readonly retry: RetryPolicy;
  readonly topic: Topic;
}

/**
 * ResultPublisher over @google-cloud/pubsub, one client and topic for both messages of a run;
 * failures are logged and never change the exit code. The result is redacted like the log lines:
 * a failure message may quote a library error that echoed secret material, and the topic's
 * subscribers (the reporter, a DLQ, a debugging tap) must never receive it. Each message is
 * published inside a PRODUCER span, whose context travels as the message attributes `traceparent`
 * (+ `tracestate`): the reporter's span is its child.
 */
export class PubSubResultPublisher implements ResultPublisher {
  private readonly topic: Topic;
  /** The same topic with the start report's shorter call timeout (one client, one connection). */
  private readonly startedTopic: Topic;

  constructor(
    private readonly pubsub: PubSub,
    topicName: string,
    private readonly options: {
      /** The result's retries and call timeout. */
      retry: RetryPolicy;
      timeoutMs: number;
      /** The start report's: brief, since the run's first write waits for it. */
      started: { retry: RetryPolicy; timeoutMs: number };
      logger: Logger;
      redactor: SecretRedactor;
    },
  ) {
    const topic = (timeout: number) =>
      pubsub.topic(topicName, { batching: { maxMessages: 1 }, gaxOpts: { timeout } });
    this.topic = topic(options.timeoutMs);
    this.startedTopic = topic(options.started.timeoutMs);
  }

  publishStarted(started: JobStarted): Promise<boolean> {
    return this.send(
      {
        type: STARTED_MESSAGE_TYPE,
        span: 'pubsub.publish_started',
        operation: 'publish-started',
        what: 'the start report',
        fallback:
          'the adapter re-checks a launch whose start it never heard of (LAUNCH_START_GRACE)',
        retry: this.options.started.retry,
        topic: this.startedTopic,
      },
      started,
      { cluster_id: started.cluster_id, execution: started.execution },
    );
  }

  publish(unredacted: JobResult): Promise<boolean> {
    const result = this.options.redactor.redact(unredacted);
    return this.send(
      {
        type: RESULT_MESSAGE_TYPE,
        span: 'pubsub.publish_result',
        operation: 'publish-result',
        what: 'the job result',
        fallback: 'the reporter will rely on the execution-finished event',
        retry: this.options.retry,
        topic: this.topic,
      },
      result,
      {
        cluster_id: result.cluster_id,
        outcome: result.outcome,
        ...(result.execution ? { execution: result.execution } : {}),
      },
    );
  }

  private send(
    kind: MessageKind,
    body: { cluster_id: string },
    attributes: Record<string, string>,
  ): Promise<boolean> {
    return withSpan(
      kind.span,
      {
        [TRACE_ATTRIBUTES.clusterId]: body.cluster_id,
        'messaging.system': 'gcp_pubsub',
        'messaging.destination.name': this.topic.name,
        'messaging.operation.type': 'send',
      },
      async (span) => {
        const published = await this.publishWithRetries(kind, body, attributes);
        if (published instanceof Error) markPhaseFailed(span, published);
        else span.setAttribute('messaging.message.id', published);
        return !(published instanceof Error);
      },
      { kind: SpanKind.PRODUCER },
    );
  }

  /** The message id, or the last error once the retries are spent (logged here). */
  private async publishWithRetries(
    kind: MessageKind,
    body: unknown,
    attributes: Record<string, string>,
  ): Promise<string | Error> {
    const traceparent = currentTraceparent();
    const tracestate = currentTracestate();
    const log = this.options.logger;
    try {
      const id = await withRetry(
        () =>
          kind.topic.publishMessage({
            data: Buffer.from(JSON.stringify(body)),
            attributes: {
              type: kind.type,
              ...attributes,
              ...(traceparent ? { traceparent } : {}),
              ...(traceparent && tracestate ? { tracestate } : {}),
            },
          }),
        {
          policy: kind.retry,
          isRetryable: () => true,
          onRetry: ({ retry, delayMs, error }) =>
            log.warn(`Publishing ${kind.what} failed, retrying`, {
              operation: kind.operation,
              retry,
              delay_ms: delayMs,
              error: error instanceof Error ? error.message : String(error),
            }),
        },
      );
      log.info(`Published ${kind.what}`, { operation: kind.operation, message_id: id });
      return id;
    } catch (error) {
      log.error(
        `Could not publish ${kind.what}; ${kind.fallback}: ${error instanceof Error ? error.message : String(error)}`,
        { operation: kind.operation },
      );
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  close(): Promise<void> {
    return this.pubsub.close();
  }
}
