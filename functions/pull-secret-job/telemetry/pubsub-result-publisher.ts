import type { PubSub, Topic } from '@google-cloud/pubsub';
import type { Logger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { withRetry } from '../../../shared/retry/with-retry';
import { RESULT_MESSAGE_TYPE, type JobResult } from '../../../shared/job-result';
import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import { SpanKind, withSpan } from '../../../shared/tracing/spans';
import { currentTraceparent, currentTracestate } from '../../../shared/tracing/traceparent';
import { markPhaseFailed } from './job-trace';
import type { ResultPublisher } from './result-publisher';

/**
 * ResultPublisher over @google-cloud/pubsub; failures are logged and never change the exit code.
 * The message is redacted like the log lines: a failure message may quote a library error that
 * echoed secret material, and the topic's subscribers (the reporter, a DLQ, a debugging tap) must
 * never receive it. Published inside the PRODUCER span `pubsub.publish_result`, whose context
 * travels as the message attributes `traceparent` (+ `tracestate`): the reporter's span is its child.
 */
export class PubSubResultPublisher implements ResultPublisher {
  private readonly topic: Topic;

  constructor(
    private readonly pubsub: PubSub,
    topicName: string,
    private readonly options: {
      retry: RetryPolicy;
      logger: Logger;
      timeoutMs: number;
      redactor: SecretRedactor;
    },
  ) {
    this.topic = pubsub.topic(topicName, {
      batching: { maxMessages: 1 },
      gaxOpts: { timeout: options.timeoutMs },
    });
  }

  publish(unredacted: JobResult): Promise<boolean> {
    const result = this.options.redactor.redact(unredacted);
    return withSpan(
      'pubsub.publish_result',
      {
        [TRACE_ATTRIBUTES.clusterId]: result.cluster_id,
        'messaging.system': 'gcp_pubsub',
        'messaging.destination.name': this.topic.name,
        'messaging.operation.type': 'send',
      },
      async (span) => {
        const published = await this.publishWithRetries(result);
        if (published instanceof Error) markPhaseFailed(span, published);
        else span.setAttribute('messaging.message.id', published);
        return !(published instanceof Error);
      },
      { kind: SpanKind.PRODUCER },
    );
  }

  /** The message id, or the last error once the retries are spent (logged here). */
  private async publishWithRetries(result: JobResult): Promise<string | Error> {
    const traceparent = currentTraceparent();
    const tracestate = currentTracestate();
    try {
      const id = await withRetry(
        () =>
          this.topic.publishMessage({
            data: Buffer.from(JSON.stringify(result)),
            attributes: {
              type: RESULT_MESSAGE_TYPE,
              cluster_id: result.cluster_id,
              outcome: result.outcome,
              ...(result.execution ? { execution: result.execution } : {}),
              ...(traceparent ? { traceparent } : {}),
              ...(traceparent && tracestate ? { tracestate } : {}),
            },
          }),
        {
          policy: this.options.retry,
          isRetryable: () => true,
          onRetry: ({ retry, delayMs, error }) =>
            this.options.logger.warn('Publishing the job result failed, retrying', {
              operation: 'publish-result',
              retry,
              delay_ms: delayMs,
              error: error instanceof Error ? error.message : String(error),
            }),
        },
      );
      this.options.logger.info('Published the job result', {
        operation: 'publish-result',
        message_id: id,
      });
      return id;
    } catch (error) {
      this.options.logger.error(
        `Could not publish the job result; the reporter will rely on the execution-finished event: ${error instanceof Error ? error.message : String(error)}`,
        { operation: 'publish-result' },
      );
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  close(): Promise<void> {
    return this.pubsub.close();
  }
}
