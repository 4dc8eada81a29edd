import { HyperFleetApiCalls, type HyperFleetClientDependencies } from './api-call';
import type { HyperFleetApiConfig } from './config';
import { HyperFleetNotFoundError } from './errors';
import {
  adapterStatusListSchema,
  adapterStatusSchema,
  clusterListSchema,
  clusterSchema,
  type AdapterStatus,
  type AdapterStatusRequest,
  type Cluster,
  type ClusterList,
} from './schemas';

export type { HyperFleetClientDependencies } from './api-call';

/**
 * What a status write did; all three are successes of the call. `stored`: the API answered 201
 * with our row. `discarded`: 204, an older generation or time than the stored one. `unchanged`: 201
 * with the stored row, not ours: upstream answers an equal observed_time so (hyperfleet-api,
 * pkg/dao/adapter_status.go `Upsert`), and only comparing the returned row tells it from a store.
 */
export type PutStatusOutcome = 'stored' | 'discarded' | 'unchanged';

/** Whether the API kept the write: only `stored` did. */
export const wasStored = (outcome: PutStatusOutcome): boolean => outcome === 'stored';

const MAX_PAGE_SIZE = 100;

/**
 * Typed client of the HyperFleet API. Every response is parsed with zod; failures become typed
 * errors (not found, invalid, unauthorized, unavailable). Idempotent calls are retried with backoff
 * and jitter on 5xx, 408, 429 and network errors; never on other 4xx (api-call.ts).
 */
export class HyperFleetClient {
  private readonly calls: HyperFleetApiCalls;

  constructor(
    config: HyperFleetApiConfig,
    private readonly deps: HyperFleetClientDependencies,
  ) {
    this.calls = new HyperFleetApiCalls(config, deps);
  }

  async getCluster(id: string): Promise<Cluster> {
    return this.calls.request('GET', `/clusters/${encodeURIComponent(id)}`, clusterSchema);
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
    return this.calls.request('GET', `/clusters${suffix}`, clusterListSchema);
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
    return this.calls.request('POST', '/clusters', clusterSchema, { kind: 'Cluster', ...body });
  }

  async patchCluster(
    id: string,
    body: { spec?: Record<string, unknown>; labels?: Record<string, string | null> },
  ): Promise<Cluster> {
    return this.calls.request('PATCH', `/clusters/${encodeURIComponent(id)}`, clusterSchema, body);
  }

  async deleteCluster(id: string): Promise<Cluster> {
    return this.calls.request('DELETE', `/clusters/${encodeURIComponent(id)}`, clusterSchema);
  }

  /** Every adapter's status on the cluster, following pages. */
  async listStatuses(clusterId: string): Promise<AdapterStatus[]> {
    const statuses: AdapterStatus[] = [];
    for (let page = 1; ; page++) {
      const list = await this.calls.request(
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
   * causes. A 201 is read: the row it returns is ours only when it carries our generation and
   * observed_time (as last_report_time); otherwise the API kept the stored row (`unchanged`).
   */
  async putStatus(clusterId: string, body: AdapterStatusRequest): Promise<PutStatusOutcome> {
    const response = await this.calls.send(
      'PUT',
      `/clusters/${encodeURIComponent(clusterId)}/statuses`,
      body,
    );
    if (response.status !== 204) {
      const returned = adapterStatusSchema.safeParse(await response.json().catch(() => undefined));
      // A body that is not a status row cannot be compared: the 201 is taken at its word.
      if (!returned.success) return 'stored';
      if (isOurRow(returned.data, body)) return 'stored';
      this.deps.logger.debug('HyperFleet API kept the stored status; ours was not stored', {
        cluster_id: clusterId,
        observed_generation: body.observed_generation,
        likely_cause: 'a report with the same observed_time is already stored',
      });
      return 'unchanged';
    }
    this.deps.logger.debug('HyperFleet API discarded the status report', {
      cluster_id: clusterId,
      observed_generation: body.observed_generation,
      likely_cause:
        'a newer report is already stored, the generation is newer than the cluster, or Available=Unknown after a first report',
    });
    return 'discarded';
  }
}

/** The returned row is the one we sent: same adapter, generation and moment. */
function isOurRow(row: AdapterStatus, sent: AdapterStatusRequest): boolean {
  return (
    row.adapter === sent.adapter &&
    row.observed_generation === sent.observed_generation &&
    row.last_report_time !== null &&
    row.last_report_time !== undefined &&
    Date.parse(row.last_report_time) === Date.parse(sent.observed_time)
  );
}
