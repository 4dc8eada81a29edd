import type { LogFields, Logger } from './logger';

// One log entry per attempt of a call to an API the job depends on (Secret Manager, the management
// clusters' Kubernetes API): the log-based metrics PREFIX_gcp_api_calls / PREFIX_k8s_api_calls
// count them by operation and status_code, and PREFIX_gcp_api_duration / PREFIX_k8s_api_duration
// read duration_ms (terraform/modules/pullsecret-adapter/api-calls.tf). Per attempt, not per
// logical call: a 503 that a retry cured is still a 503 the API answered, which is what the seed's
// PullSecretGCPAPIErrors alert counts.
//
// INFO, not DEBUG: log-based metrics see only what is written, and the job logs at INFO by default
// (job.log_level). The cost is small: an apply makes about 5 to 12 calls (GetSecret, AccessSecretVersion,
// ListSecretVersions, AddSecretVersion, UpdateSecret, the Kubernetes probe and write), each entry
// about 0.6 KB, so under 8 KB per run: 100,000 runs a month add under 1 GiB to Cloud Logging.
//
// The entry names the call and its target (names, never contents) and the answer's status: no
// request or response body, no error message (an API's message may quote what it was sent).

/** An answer as the entry states it. */
export interface CallStatus {
  /**
   * The HTTP status (for gRPC, the one google.rpc.Code maps the code to: shared/gcp/grpc-http-status.ts);
   * `2xx` when the client says only that the call succeeded; `timeout` when our deadline ran out
   * before any answer; `no_response` when none came (connection refused or reset).
   */
  readonly status_code: string;
  /** The gRPC code's name, where one HTTP status stands for several codes. */
  readonly grpc_code?: string;
}

/** How an API's answers read as a CallStatus. */
export interface CallStatuses {
  readonly answered: CallStatus;
  readonly failed: (error: unknown) => CallStatus;
}

/** One attempt of a call. */
export interface ApiCall {
  /** The API's service name, the metrics' filter: `secretmanager.googleapis.com`, `kubernetes`. */
  readonly api: string;
  /** The API as a person reads it in the message: "Secret Manager", "Kubernetes". */
  readonly service: string;
  /** The method or verb: `AddSecretVersion`, `create-secret`. */
  readonly operation: string;
  /** 1 for the first attempt, 2 for the first retry, ... */
  readonly attempt: number;
  /** What the call was about, by name only (resource, namespace, ...). */
  readonly target: LogFields;
}

/** Runs one attempt and logs its entry, answered or failed; the result or error passes unchanged. */
export async function loggedApiCall<T>(
  logger: Logger,
  call: ApiCall,
  statuses: CallStatuses,
  run: () => Promise<T>,
  clock: () => number = Date.now,
): Promise<T> {
  const started = clock();
  const log = (status: CallStatus) =>
    logger.info(`${call.service} ${call.operation}: ${status.status_code}`, {
      ...call.target,
      api: call.api,
      operation: call.operation,
      call_attempt: call.attempt,
      ...status,
      duration_ms: clock() - started,
    });
  try {
    const result = await run();
    log(statuses.answered);
    return result;
  } catch (error) {
    log(statuses.failed(error));
    throw error;
  }
}
