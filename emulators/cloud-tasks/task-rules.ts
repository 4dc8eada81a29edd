import * as grpc from '@grpc/grpc-js';
import { GrpcError } from '../common/grpc-error';
import type { DispatchRequest, TaskRecord } from './records';
import { METHODS_WITH_BODY, requireTaskName, TASK_LIMITS } from './rules';
import { toMs, type HttpRequestInput, type TaskInput } from './wire';

// What CreateTask accepts, as Task and HttpRequest document it
// (https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks and
// https://cloud.google.com/tasks/docs/reference/rest/v2/projects.locations.queues.tasks#httprequest).

const invalid = (message: string) => new GrpcError(grpc.status.INVALID_ARGUMENT, message);

/** "If not specified, "https://www.googleapis.com/auth/cloud-platform" will be used." (OAuthToken.scope) */
export const DEFAULT_OAUTH_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * Headers Cloud Tasks computes or reserves, dropped from what the task sets: "Host", "Content-Length",
 * "User-Agent" (set to "Google-Cloud-Tasks"), "X-Google-*", "X-AppEngine-*" (HttpRequest.headers),
 * and the X-CloudTasks-* service headers it adds itself.
 */
const RESERVED_HEADER =
  /^(host|content-length|user-agent|x-google-.*|x-appengine-.*|x-cloudtasks-.*)$/i;

function dispatchRequest(http: HttpRequestInput): DispatchRequest {
  const url = http.url ?? '';
  // "This string must begin with either "http://" or "https://"."
  if (!/^https?:\/\//.test(url))
    throw invalid(
      `Task.http_request.url must begin with "http://" or "https://" (got "${url.slice(0, 80)}").`,
    );
  if (url.length > TASK_LIMITS.maxUrlChars)
    throw invalid(`Task.http_request.url is longer than ${TASK_LIMITS.maxUrlChars} characters.`);
  const method =
    http.http_method && http.http_method !== 'HTTP_METHOD_UNSPECIFIED' ? http.http_method : 'POST';
  if (http.body && http.body.length > 0 && !METHODS_WITH_BODY.has(method))
    throw invalid(
      `Task.http_request.body is set but http_method is ${method}: a body is allowed only with POST, PUT or PATCH.`,
    );
  const headers = Object.fromEntries(
    Object.entries(http.headers ?? {}).filter(([name]) => !RESERVED_HEADER.test(name)),
  );
  const headerBytes = Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  if (headerBytes >= TASK_LIMITS.maxHeaderBytes)
    throw invalid(`Task.http_request.headers: the size of the headers must be less than 80KB.`);
  const oauth = http.oauth_token;
  const oidc = http.oidc_token;
  return {
    url,
    method,
    // "If specified, all Authorization headers in the HttpRequest.headers field will be overridden."
    headers:
      oauth || oidc
        ? Object.fromEntries(
            Object.entries(headers).filter(([n]) => n.toLowerCase() !== 'authorization'),
          )
        : headers,
    ...(http.body && http.body.length > 0 ? { body: http.body } : {}),
    ...(oauth
      ? {
          oauthToken: {
            serviceAccountEmail: oauth.service_account_email ?? '',
            scope: oauth.scope || DEFAULT_OAUTH_SCOPE,
          },
        }
      : {}),
    ...(oidc
      ? {
          oidcToken: {
            serviceAccountEmail: oidc.service_account_email ?? '',
            // "If not specified, the URI specified in target will be used."
            audience: oidc.audience || url,
          },
        }
      : {}),
  };
}

/** The dispatch deadline: HTTP tasks default to 10 minutes, within [15 s, 30 min]. */
function deadlineMs(input: TaskInput): number {
  if (!input.dispatch_deadline) return TASK_LIMITS.defaultDeadlineMs;
  const ms = toMs(input.dispatch_deadline);
  if (ms < TASK_LIMITS.minDeadlineMs || ms > TASK_LIMITS.maxDeadlineMs)
    throw invalid(
      `Task.dispatch_deadline must be between 15 seconds and 30 minutes for HTTP tasks (got ${ms / 1000} s).`,
    );
  return ms;
}

/**
 * A new task in `queue` from a CreateTask request at `nowMs`, or INVALID_ARGUMENT naming the
 * field. Its name is the caller's (validated) or `unusedName()`. "If schedule_time is not set or
 * is in the past then Cloud Tasks will set it to the current time."
 */
export function newTask(
  queue: string,
  input: TaskInput,
  nowMs: number,
  unusedName: () => string,
): TaskRecord {
  if (input.app_engine_http_request !== undefined)
    throw new GrpcError(
      grpc.status.UNIMPLEMENTED,
      'The Cloud Tasks emulator dispatches HTTP tasks (Task.http_request) only, not App Engine tasks.',
    );
  if (!input.http_request) throw invalid('Task.message_type: the task needs an http_request.');
  const size =
    (input.http_request.body?.length ?? 0) +
    JSON.stringify(input.http_request.headers ?? {}).length;
  if (size > TASK_LIMITS.maxTaskBytes)
    throw invalid(`Task size exceeds the maximum of ${TASK_LIMITS.maxTaskBytes / 1024}KB.`);
  const name = input.name ? requireTaskName(input.name, queue) : unusedName();
  const scheduled = input.schedule_time ? toMs(input.schedule_time) : nowMs;
  if (scheduled - nowMs > TASK_LIMITS.maxScheduleAheadMs)
    throw invalid('Task.schedule_time must be at most 30 days in the future.');
  return {
    name,
    queue,
    request: dispatchRequest(input.http_request),
    scheduleTimeMs: Math.max(scheduled, nowMs),
    createTimeMs: nowMs,
    dispatchDeadlineMs: deadlineMs(input),
    dispatchCount: 0,
    responseCount: 0,
    attempts: [],
    running: false,
  };
}
