import { status } from '@grpc/grpc-js';
import type { v2 } from '@google-cloud/run';
import { grpcCode, isTransientGrpcError, toAdapterError } from '../../shared/gcp/grpc-failure';
import type { RetryPolicy } from '../../shared/retry/backoff';
import { withRetry } from '../../shared/retry/with-retry';
import type { ExecutionReader, ExecutionSummary } from './execution-reader';

type Timestamp = { seconds?: unknown; nanos?: unknown } | null | undefined;
const iso = (t: Timestamp) =>
  t?.seconds !== undefined && t.seconds !== null
    ? new Date(
        Number(String(t.seconds)) * 1000 + Math.floor(Number(t.nanos ?? 0) / 1e6),
      ).toISOString()
    : undefined;

/** ExecutionReader over the real ExecutionsClient (Cloud Run or its emulator). */
export class CloudRunExecutionReader implements ExecutionReader {
  constructor(
    private readonly client: v2.ExecutionsClient,
    private readonly options: { timeoutMs: number; retry: RetryPolicy },
  ) {}

  async read(name: string): Promise<ExecutionSummary | undefined> {
    let execution;
    try {
      [execution] = await withRetry(
        () => this.client.getExecution({ name }, { timeout: this.options.timeoutMs, retry: null }),
        { policy: this.options.retry, isRetryable: isTransientGrpcError },
      );
    } catch (error) {
      if (grpcCode(error) === status.NOT_FOUND) return undefined;
      throw toAdapterError(error, {
        service: 'Cloud Run',
        operation: 'GetExecution',
        resource: name,
        identityHint: "the reporter's service account (roles/run.viewer on the job)",
      });
    }
    const completed = execution.conditions?.find((c) => c.type === 'Completed');
    const env = Object.fromEntries(
      (execution.template?.containers?.[0]?.env ?? []).flatMap((v) =>
        v.name ? [[v.name, v.value ?? '']] : [],
      ),
    );
    const startTime =
      iso(execution.startTime as Timestamp) ?? iso(execution.createTime as Timestamp);
    const completionTime = iso(execution.completionTime as Timestamp);
    return {
      name,
      env,
      ...(startTime ? { startTime } : {}),
      ...(completionTime ? { completionTime } : {}),
      succeeded:
        Number(execution.succeededCount ?? 0) > 0 && Number(execution.failedCount ?? 0) === 0,
      cancelled:
        Number(execution.cancelledCount ?? 0) > 0 ||
        String(completed?.executionReason ?? '') === 'CANCELLED',
      message: completed?.message ?? '',
      ...(completed?.executionReason ? { executionReason: String(completed.executionReason) } : {}),
    };
  }
}
