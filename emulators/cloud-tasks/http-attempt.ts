import * as grpc from '@grpc/grpc-js';
import { codeOfHttpStatus } from '../common/http-grpc-status';
import type { TaskRecord } from './records';

/** Mints the access token an OAuthToken task is sent with (scope), or the ID token of an OidcToken task (audience). */
export type MintToken = (
  serviceAccountEmail: string,
  scopeOrAudience: string,
) => string | Promise<string>;

/**
 * The default minter: an opaque token that names the account and scope, e.g.
 * `cloud-tasks-emulator.oauth.launcher@p.iam.gserviceaccount.com`, for receivers that check only
 * that a bearer token is there (the Cloud Run emulator's REST surface). A stack that verifies
 * tokens passes a minter backed by its metadata server.
 */
export const opaqueToken =
  (kind: 'oauth' | 'oidc'): MintToken =>
  (email) =>
    `cloud-tasks-emulator.${kind}.${email}`;

/**
 * A minter backed by the local stack's metadata server (its `POST /_emulator/tokens/mint`): real
 * access tokens of the task's account, which the receiving emulator checks through token info and
 * IAM, as the Cloud Tasks service agent's are checked by Google.
 */
export const metadataServerMinter =
  (mintUrl: string): MintToken =>
  async (email, scope) => {
    const answer = await fetch(mintUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ serviceAccount: email, scopes: scope.split(/\s+/).filter(Boolean) }),
      signal: AbortSignal.timeout(5000),
    });
    const body = (await answer.json().catch(() => ({}))) as { access_token?: unknown };
    if (answer.status !== 200 || typeof body.access_token !== 'string')
      throw new Error(`could not mint a token for ${email}: HTTP ${answer.status}`);
    return body.access_token;
  };

/** What one attempt came back with. */
export interface AttemptOutcome {
  /** The worker's HTTP status; absent when no response came (connection failure, deadline). */
  readonly httpStatus?: number;
  readonly retryAfter?: string | null;
  /** google.rpc.Status of the attempt (Attempt.response_status). */
  readonly status: { readonly code: number; readonly message: string };
}

/** What the request carries besides the task's own headers. */
export interface AttemptContext {
  readonly retryCount: number;
  readonly executionCount: number;
  readonly previousResponse?: number;
  readonly mintToken: MintToken;
  readonly mintIdToken: MintToken;
}

const shortName = (name: string) => name.slice(name.lastIndexOf('/') + 1);

/**
 * The headers Cloud Tasks adds to an HTTP target's request
 * (https://cloud.google.com/tasks/docs/creating-http-target-tasks#handler, "Reading request
 * headers"): the queue's and task's short names, how often the task was retried (dispatches
 * before this one) and executed (responses received), its ETA in seconds since the epoch, and on a
 * retry the previous response code; User-Agent "Google-Cloud-Tasks" (HttpRequest.headers).
 */
async function requestHeaders(
  task: TaskRecord,
  context: AttemptContext,
): Promise<Record<string, string>> {
  const { request } = task;
  const headers: Record<string, string> = {
    ...request.headers,
    'User-Agent': 'Google-Cloud-Tasks',
    'X-CloudTasks-QueueName': shortName(task.queue),
    'X-CloudTasks-TaskName': shortName(task.name),
    'X-CloudTasks-TaskRetryCount': String(context.retryCount),
    'X-CloudTasks-TaskExecutionCount': String(context.executionCount),
    'X-CloudTasks-TaskETA': (task.scheduleTimeMs / 1000).toFixed(6),
    ...(context.previousResponse !== undefined
      ? { 'X-CloudTasks-TaskPreviousResponse': String(context.previousResponse) }
      : {}),
  };
  // "If specified, an OAuth token will be generated and attached as an Authorization header."
  if (request.oauthToken)
    headers.Authorization = `Bearer ${await context.mintToken(request.oauthToken.serviceAccountEmail, request.oauthToken.scope)}`;
  else if (request.oidcToken)
    headers.Authorization = `Bearer ${await context.mintIdToken(request.oidcToken.serviceAccountEmail, request.oidcToken.audience)}`;
  return headers;
}

/**
 * Sends one attempt of `task`: its method, URL, headers and body, following redirects ("The
 * Location header from a redirect response [300 - 399] may be followed. The redirect is not
 * counted as a separate attempt."), cancelled at the dispatch deadline ("the request is cancelled
 * and the attempt is marked as a DEADLINE_EXCEEDED failure"). A worker's answer becomes the
 * google.rpc.Status of its HTTP status (http-grpc-status.ts); no answer is UNAVAILABLE.
 */
export async function sendAttempt(
  task: TaskRecord,
  context: AttemptContext,
): Promise<AttemptOutcome> {
  const { request } = task;
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: await requestHeaders(task, context),
      ...(request.body ? { body: new Uint8Array(request.body) } : {}),
      redirect: 'follow',
      signal: AbortSignal.timeout(task.dispatchDeadlineMs),
    });
    // The body is read (and dropped) so the connection is released.
    await response.arrayBuffer().catch(() => undefined);
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    return {
      status: timedOut
        ? {
            code: grpc.status.DEADLINE_EXCEEDED,
            message: `No response within the dispatch deadline of ${task.dispatchDeadlineMs / 1000} s.`,
          }
        : {
            code: grpc.status.UNAVAILABLE,
            message: `The request to the target failed: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`,
          },
    };
  }
  return {
    httpStatus: response.status,
    retryAfter: response.headers.get('retry-after'),
    status: {
      code: codeOfHttpStatus(response.status),
      message: `HTTP status code ${response.status}`,
    },
  };
}
