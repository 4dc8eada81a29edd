import type * as z from 'zod';
import type { Logger } from '../logging/logger';
import { describeIssue } from '../zod-issue';
import { parseRetryAfter } from '../retry/retry-after';
import { withRetry } from '../retry/with-retry';
import { callTimeoutMs } from '../events/delivery-deadline';
import type { AuthHeaderProvider } from './auth';
import { HTTP_ATTRIBUTES } from '../tracing/attributes';
import { callerHeaders, type HyperFleetApiConfig } from './config';
import {
  errorForStatus,
  type ApiFailureDetail,
  HyperFleetNotFoundError,
  HyperFleetUnavailableError,
  isTransientStatus,
} from './errors';
import { nodeHttpTransport, type HttpTransport, type TransportResponse } from './http-transport';
import {
  adapterStatusListSchema,
  clusterListSchema,
  clusterSchema,
  problemSchema,
  type AdapterStatus,
  type AdapterStatusRequest,
  type Cluster,
  type ClusterList,
} from './schemas';
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

/** What a status write did: stored (201) or silently discarded by the API (204); both succeed. */
export type PutStatusOutcome = 'stored' | 'discarded';

const RETRY_BASE_MS = 200;
const RETRY_MAX_MS = 5_000;
const MAX_PAGE_SIZE = 100;

/** A transport-level failure (no HTTP answer), kept apart so it is retried. */
class NoAnswerError extends Error {}

/**
 * Typed client of the HyperFleet API. Every response is parsed with zod; failures become typed
 * errors (not found, invalid, unauthorized, unavailable). Idempotent calls are retried with backoff
 * and jitter on 5xx, 408, 429 and network errors; never on other 4xx.
 */
export class HyperFleetClient {
  private readonly fetch: HttpTransport;
  private readonly root: string;

  constructor(
    private readonly config: HyperFleetApiConfig,
    private readonly deps: HyperFleetClientDependencies,
  ) {
    this.fetch = deps.fetch ?? nodeHttpTransport;
    this.root = `${config.baseUrl}/api/hyperfleet/${config.version}`;
  }

  async getCluster(id: string): Promise<Cluster> {
    return this.request('GET', `/clusters/${encodeURIComponent(id)}`, clusterSchema);
  }

  /**
   * The cluster, or undefined when the API answers 404 HYPERFLEET-NTF-001 (gone or never existed).
   * Any other 404 (an unknown route: wrong base URL or version) throws HyperFleetEndpointError.
   */
  async findCluster(id: string): Promise<Cluster | undefined> {
    try {
      return await this.getCluster(id);
    } catch (error) {
      if (error instanceof HyperFleetNotFoundError) return undefined;
      throw error;
    }
  }

  async listClusters(
    query: { page?: number; size?: number; search?: string } = {},
  ): Promise<ClusterList> {
    const params = new URLSearchParams();
    if (query.page) params.set('page', String(query.page));
    if (query.size) params.set('size', String(query.size));
    if (query.search) params.set('search', query.search);
    const suffix = params.size > 0 ? `?${params.toString()}` : '';
    return this.request('GET', `/clusters${suffix}`, clusterListSchema);
  }

  /** Every cluster, following pages. */
  async listAllClusters(search?: string): Promise<Cluster[]> {
    const clusters: Cluster[] = [];
    for (let page = 1; ; page++) {
      const list = await this.listClusters({
        page,
        size: MAX_PAGE_SIZE,
        ...(search ? { search } : {}),
      });
      clusters.push(...list.items);
      if (list.items.length === 0 || clusters.length >= list.total) return clusters;
    }
  }

  async createCluster(body: {
    name: string;
    spec: Record<string, unknown>;
    labels?: Record<string, string>;
    id?: string;
  }): Promise<Cluster> {
    return this.request('POST', '/clusters', clusterSchema, { kind: 'Cluster', ...body });
  }

  async patchCluster(
    id: string,
    body: { spec?: Record<string, unknown>; labels?: Record<string, string | null> },
  ): Promise<Cluster> {
    return this.request('PATCH', `/clusters/${encodeURIComponent(id)}`, clusterSchema, body);
  }

  async deleteCluster(id: string): Promise<Cluster> {
    return this.request('DELETE', `/clusters/${encodeURIComponent(id)}`, clusterSchema);
  }

  /** Every adapter's status on the cluster, following pages. */
  async listStatuses(clusterId: string): Promise<AdapterStatus[]> {
    const statuses: AdapterStatus[] = [];
    for (let page = 1; ; page++) {
      const list = await this.request(
        'GET',
        `/clusters/${encodeURIComponent(clusterId)}/statuses?page=${page}&size=${MAX_PAGE_SIZE}`,
        adapterStatusListSchema,
      );
      statuses.push(...list.items);
      if (list.items.length === 0 || statuses.length >= list.total) return statuses;
    }
  }

  /**
   * PUT a status report. A 204 discard is success too; it is logged at debug with its likely
   * causes (the API says nothing more, so nothing is read from the response but its status).
   */
  async putStatus(clusterId: string, body: AdapterStatusRequest): Promise<PutStatusOutcome> {
    const response = await this.send(
      'PUT',
      `/clusters/${encodeURIComponent(clusterId)}/statuses`,
      body,
    );
    if (response.status === 204) {
      this.deps.logger.debug('HyperFleet API discarded the status report', {
        cluster_id: clusterId,
        observed_generation: body.observed_generation,
        likely_cause:
          'a newer report is already stored, the generation is newer than the cluster, or Available=Unknown after a first report',
      });
      return 'discarded';
    }
    return 'stored';
  }

  private async request<S extends z.ZodType>(
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
  private send(method: string, path: string, body?: unknown): Promise<TransportResponse> {
    const template = routeTemplate(`/api/hyperfleet/${this.config.version}`, path);
    return withApiCallSpan(method, template, async (span) => {
      try {
        const response = await this.sendAttempts(method, path, body);
        span.setAttribute(HTTP_ATTRIBUTES.statusCode, response.status);
        return response;
      } catch (error) {
        const failure = (error as { failure?: ApiFailureDetail }).failure;
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

  /** Timeout per attempt, retries for idempotent methods, typed errors. */
  private async sendAttempts(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<TransportResponse> {
    const url = `${this.root}${path}`;
    const idempotent = method !== 'POST';
    const started = Date.now();
    const send = async (): Promise<TransportResponse> => {
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
    };
    // A 401 may mean the token rotated under a cached copy: the credential is read afresh and the
    // call sent once more (safe for a POST too: a refused request changed nothing). Only a second
    // 401 is the permanent "unauthorized".
    let refreshedAfter401 = false;
    try {
      const response = await withRetry(
        async () => {
          let answer = await send();
          if (answer.status === 401 && this.deps.auth.refresh && !refreshedAfter401) {
            refreshedAfter401 = true;
            this.deps.auth.refresh();
            this.deps.logger.info(
              'HyperFleet API refused the token (401); re-reading it and retrying once',
              {
                method,
                path: path.split('?')[0],
              },
            );
            answer = await send();
          }
          if (answer.ok) return answer;
          const retryAfterMs =
            answer.status === 429 || answer.status === 503
              ? parseRetryAfter(answer.headers.get('retry-after'), new Date())
              : undefined;
          throw errorForStatus({
            method,
            path: path.split('?')[0]!,
            url: url.split('?')[0]!,
            status: answer.status,
            ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
            ...(await problemOf(answer)),
          });
        },
        {
          policy: {
            attempts: idempotent ? this.config.retryAttempts : 1,
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
        },
      );
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
}

/**
 * The RFC 9457 problem of an error answer, when it is one. A body that is not a problem (a proxy's
 * HTML page, an empty 404) yields no code, which is how a 404 from elsewhere is told apart.
 */
async function problemOf(
  response: TransportResponse,
): Promise<{ code?: string; detail?: string; traceId?: string }> {
  try {
    const problem = problemSchema.safeParse(await response.json());
    if (!problem.success) return {};
    return {
      ...(problem.data.code ? { code: problem.data.code } : {}),
      ...(problem.data.detail ? { detail: problem.data.detail } : {}),
      ...(problem.data.trace_id ? { traceId: problem.data.trace_id } : {}),
    };
  } catch {
    return isTransientStatus(response.status) ? {} : { detail: response.statusText };
  }
}

/** The API's correlation id of a failed attempt, as a log field. */
function hyperFleetTraceId(error: unknown): { hyperfleet_trace_id?: string } {
  const traceId = (error as { failure?: ApiFailureDetail }).failure?.traceId;
  return traceId ? { hyperfleet_trace_id: traceId } : {};
}
