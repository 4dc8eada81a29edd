import { runJobOverrideEnv } from '../cloud-run/execution-overrides';
import { executionEnv, type LaunchRequest } from '../../../shared/launch/execution-env';

/** Where and as whom the queue runs the job. */
export interface RunJobTarget {
  /** projects/P/locations/L/jobs/J */
  readonly jobName: string;
  /** The Cloud Run Admin API's root: https://run.googleapis.com, or the local emulator's. */
  readonly endpoint: string;
  /** The launcher identity whose OAuth token Cloud Tasks attaches (LAUNCHER_SERVICE_ACCOUNT). */
  readonly serviceAccountEmail: string;
}

/** The HTTP request of a launch task, in the fields of Cloud Tasks' `HttpRequest`. */
export interface RunJobHttpRequest {
  readonly url: string;
  readonly httpMethod: 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly oauthToken: { readonly serviceAccountEmail: string; readonly scope: string };
}

/** The scope Cloud Run's Admin API accepts (https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run, "Authorization scopes"). */
const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/**
 * `POST {endpoint}/v2/{job}:run` with the execution's env as container overrides, authorized by an
 * OAuth token (not an OIDC one: Google APIs take access tokens; Cloud Tasks mints it for
 * `serviceAccountEmail`, https://cloud.google.com/tasks/docs/creating-http-target-tasks#token).
 * The env is the allow-listed per-execution env (identifiers and references, never the pull
 * secret): the task's body is readable by anyone who may view tasks in the queue. Throws
 * UnexpectedOverrideError before anything is queued with a name outside the allow-list.
 */
export function runJobHttpRequest(request: LaunchRequest, target: RunJobTarget): RunJobHttpRequest {
  return runJobHttpRequestWith(
    { containerOverrides: [{ env: runJobOverrideEnv(executionEnv(request)) }] },
    target,
  );
}

/** RunJob's overrides (https://cloud.google.com/run/docs/reference/rest/v2/Overrides): env, and a batch's taskCount. */
export interface RunJobOverrides {
  readonly containerOverrides: readonly {
    readonly env: readonly { name: string; value: string }[];
  }[];
  readonly taskCount?: number;
  /** A Duration in seconds, e.g. `7200s`. */
  readonly timeout?: string;
}

/** The launch task's HTTP request for RunJob with `overrides`. */
export function runJobHttpRequestWith(
  overrides: RunJobOverrides,
  target: RunJobTarget,
): RunJobHttpRequest {
  const body = { overrides };
  return {
    url: `${target.endpoint.replace(/\/+$/, '')}/v2/${target.jobName}:run`,
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: Buffer.from(JSON.stringify(body)),
    oauthToken: { serviceAccountEmail: target.serviceAccountEmail, scope: CLOUD_PLATFORM_SCOPE },
  };
}
