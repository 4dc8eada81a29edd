import type * as z from 'zod';
import { callTimeoutMs } from '../events/delivery-deadline';
import type { Logger } from '../logging/logger';
import { parseRetryAfter } from '../retry/retry-after';
import { withRetry } from '../retry/with-retry';
import { HTTP_ATTRIBUTES } from '../tracing/attributes';
import { describeIssue } from '../zod-issue';
import { failureOf, hyperFleetTraceId, problemOf } from './api-problem';
import type { AuthHeaderProvider } from './auth';
import { callerHeaders, type HyperFleetApiConfig } from './config';
import { errorForStatus, HyperFleetNotFoundError, HyperFleetUnavailableError } from './errors';
import { nodeHttpTransport, type HttpTransport, type TransportResponse } from './http-transport';
import { routeTemplate, traceContextHeaders, withApiCallSpan } from './tracing';

export interface HyperFleetClientDependencies {
  readonly auth: AuthHeaderProvider;
  readonly logger: Logger;
  /** How requests are sent (default: node:http with keep-alive; global fetch fits too). */
  readonly fetch?: HttpTransport;
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * Sent as User-Agent (e.g. `pullsecret-adapter`): the API's access logs, and the local
   * emulator's request log and faults, tell apart callers that share one identity.
   */
  readonly userAgent?: string;
}

const RETRY_BASE_MS = 200;
const RETRY_MAX_MS = 5_000;

/** A transport-level failure (no HTTP answer), kept apart so it is retried. */
class NoAnswerError extends Error {}

/**
 * How one HyperFleet API call is made: a CLIENT span, a timeout per attempt, retries with backoff
 * and jitter for idempotent methods on 5xx, 408, 429 and network errors (never on other 4xx), one
 * fresh credential after a 401, typed errors, and a JSON answer parsed with zod.
 */
export class HyperFleetApiCalls {
  private readonly fetch: HttpTransport;
  private readonly root: string;

  constructor(
    private readonly config: HyperFleetApiConfig,
    private readonly deps: HyperFleetClientDependencies,
  ) {
    this.fetch = deps.fetch ?? nodeHttpTransport;
    this.root = `${config.baseUrl}/api/hyperfleet/${config.version}`;
  }

  /** A call whose answer is parsed with `schema`; an answer of another shape is an error. */
  async request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.output<S>> {
    const response = await this.send(method, path, body);
    const unexpected = (what: string) =>
      errorForStatus({
        method,
        path,
        status: 400,
        detail: `unexpected response body (${what}); is HYPERFLEET_API_BASE_URL the HyperFleet API?`,
      });
    let json: unknown;
    try {
      json = await response.json();
    } catch {
      // Not the parser's message: it quotes the body around the bad token, and a cluster's body
      // holds its pull secret.
      throw unexpected(
        `the ${response.status} response body is not valid JSON; content-type ${JSON.stringify((response.headers.get('content-type') ?? 'none').slice(0, 60))}`,
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw unexpected(issue ? describeIssue(issue) : 'invalid');
    }
    return parsed.data;
  }

  /**
   * One logical call inside a CLIENT span, whose context every attempt sends as `traceparent`.
   * A failure's problem `trace_id` (the API's own correlation id) is logged as hyperfleet_trace_id.
   */
  send(method: string, path: string, body?: unknown): Promise<TransportResponse> {
    const template = routeTemplate(`/api/hyperfleet/${this.config.version}`, path);
    return withApiCallSpan(method, template, async (span) => {
      try {
        const response = await this.sendAttempts(method, path, body);
        span.setAttribute(HTTP_ATTRIBUTES.statusCode, response.status);
        return response;
      } catch (error) {
        const failure = failureOf(error);
        if (failure?.status !== undefined)
          span.setAttribute(HTTP_ATTRIBUTES.statusCode, failure.status);
        if (failure)
          this.deps.logger[error instanceof HyperFleetNotFoundError ? 'debug' : 'warn'](
            'HyperFleet API call failed',
            {
              method,
              path: template,
              ...(failure.status !== undefined ? { status: failure.status } : {}),
              ...(failure.code ? { code: failure.code } : {}),
              ...(failure.traceId ? { hyperfleet_trace_id: failure.traceId } : {}),
            },
          );
        throw error;
      }
    });
  }

  /** Retries for idempotent methods; a call that never got an answer ends as "unavailable". */
  private async sendAttempts(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<TransportResponse> {
    const started = Date.now();
    const refreshed = { after401: false };
    try {
      const response = await withRetry(() => this.attempt(method, path, body, refreshed), {
        policy: {
          attempts: method !== 'POST' ? this.config.retryAttempts : 1,
          baseDelayMs: RETRY_BASE_MS,
          maxDelayMs: RETRY_MAX_MS,
        },
        isRetryable: (error) =>
          error instanceof NoAnswerError || error instanceof HyperFleetUnavailableError,
        requestedDelayMs: (error) =>
          error instanceof HyperFleetUnavailableError ? error.retryAfterMs : undefined,
        ...(this.deps.sleep ? { sleep: this.deps.sleep } : {}),
        onRetry: ({ error, retry, delayMs }) =>
          this.deps.logger.warn('HyperFleet API call failed, retrying', {
            method,
            path: path.split('?')[0],
            retry,
            delay_ms: delayMs,
            error: error instanceof Error ? error.message : String(error),
            ...hyperFleetTraceId(error),
          }),
      });
      this.deps.logger.debug('HyperFleet API call', {
        method,
        path: path.split('?')[0],
        status: response.status,
        duration_ms: Date.now() - started,
      });
      return response;
    } catch (error) {
      if (error instanceof NoAnswerError)
        throw new HyperFleetUnavailableError({
          method,
          path: path.split('?')[0]!,
          detail: error.message,
        });
      throw error;
    }
  }

  /**
   * One attempt: the answer when it is a success, else a typed error. A 401 may mean the token
   * rotated under a cached copy: the credential is read afresh and the call sent once more (safe
   * for a POST too: a refused request changed nothing). Only a second 401, in this call, is the
   * permanent "unauthorized".
   */
  private async attempt(
    method: string,
    path: string,
    body: unknown,
    refreshed: { after401: boolean },
  ): Promise<TransportResponse> {
    let answer = await this.sendOnce(method, path, body);
    if (answer.status === 401 && this.deps.auth.refresh && !refreshed.after401) {
      refreshed.after401 = true;
      this.deps.auth.refresh();
      this.deps.logger.info(
        'HyperFleet API refused the token (401); re-reading it and retrying once',
        { method, path: path.split('?')[0] },
      );
      answer = await this.sendOnce(method, path, body);
    }
    if (answer.ok) return answer;
    const retryAfterMs =
      answer.status === 429 || answer.status === 503
        ? parseRetryAfter(answer.headers.get('retry-after'), new Date())
        : undefined;
    throw errorForStatus({
      method,
      path: path.split('?')[0]!,
      url: `${this.root}${path}`.split('?')[0]!,
      status: answer.status,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      ...(await problemOf(answer)),
    });
  }

  /** One HTTP request with a fresh credential and the trace context; no answer: NoAnswerError. */
  private async sendOnce(method: string, path: string, body: unknown): Promise<TransportResponse> {
    const url = `${this.root}${path}`;
    const authorization = await this.deps.auth.authorization(url);
    try {
      return await this.fetch(url, {
        method,
        headers: {
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...callerHeaders(this.config.caller),
          ...(this.deps.userAgent ? { 'user-agent': this.deps.userAgent } : {}),
          ...(authorization ? { authorization } : {}),
          ...traceContextHeaders(),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(
          callTimeoutMs(this.config.timeoutMs, `${method} ${path.split('?')[0]}`),
        ),
      });
    } catch (error) {
      throw new NoAnswerError(
        error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      );
    }
  }
}
