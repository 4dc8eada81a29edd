import * as z from 'zod';
import { aggregateConditions } from './aggregation';
import { validateClusterSpec, type ClusterSpecSchema } from './cluster-spec-schema';
import type { StoredAdapterStatus, StoredCluster } from './model';
import { conflict, invalid, notFound, type FieldError } from './problem';
import { parseSearch } from './search';
import { parseStatusRequest } from './status-request';
import { decideStatusWrite } from './status-rules';
import { uuid7 } from '../common/uuid7';

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const labelsSchema = z.record(z.string(), z.string());
const createSchema = z.object({
  kind: z.literal('Cluster'),
  name: z.string().min(3).max(53).regex(NAME),
  spec: z.record(z.string(), z.unknown()),
  labels: labelsSchema.optional(),
  // The API generates ids; a caller-chosen one only has to fit in a URL path segment, so tests
  // can also create clusters whose ids are not label-safe (the adapter must refuse those).
  id: z
    .string()
    .regex(/^[^/\s?#%]{1,253}$/)
    .optional(),
});
const patchSchema = z
  .object({
    spec: z.record(z.string(), z.unknown()).optional(),
    labels: z.record(z.string(), z.string().nullable()).optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'at least one of spec or labels is required');

/** How a simulated adapter (validation, dns, placement...) reports when a cluster changes. */
export interface SimulatedAdapter {
  /** `data` it reports, e.g. placement's `{namespace}`. */
  readonly data?: (cluster: { id: string; name: string }) => Record<string, unknown>;
  /**
   * Takes new settings (POST /simulated-settings), as an adapter redeployed with another
   * configuration; the store then has it report again for every cluster (rereport).
   */
  readonly configure?: (settings: Readonly<Record<string, unknown>>) => void;
}

export interface HyperFleetStoreOptions {
  /** Adapters whose Available (or Finalized) decides Reconciled and hard deletion. */
  readonly requiredAdapters: readonly string[];
  /** Adapters the emulator plays itself: they report at every new generation unless held. */
  readonly simulatedAdapters?: Readonly<Record<string, SimulatedAdapter>>;
  readonly now?: () => Date;
  /** The provider schema `spec` must fit on create and patch (default `any`, as the core API). */
  readonly clusterSpecSchema?: ClusterSpecSchema;
}

/** A page of the cluster list: page from 1, `search` in TSL, `order` as `FIELD [asc|desc]`. */
export interface ListQuery {
  readonly page: number;
  readonly size: number;
  readonly search: string | null;
  readonly order: string | null;
}

/**
 * The outcome of a PUT /statuses: stored (201 with the new row), not stored yet answered 201 with
 * the row already stored (`unchanged`: an equal observed_time), or discarded (bare 204).
 */
export type PutStatusResult =
  | { stored: true; status: StoredAdapterStatus }
  | { stored: false; cause: string; unchanged?: StoredAdapterStatus };

function zodProblem(error: z.ZodError, what: string) {
  const errors: FieldError[] = error.issues.map((issue) => ({
    field: issue.path.join('.') || 'body',
    message: issue.message,
  }));
  return invalid(
    `Invalid ${what}: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
    errors,
  );
}

/** Clusters and adapter statuses with the HyperFleet API's rules and aggregation. */
export class HyperFleetStore {
  private readonly clusters = new Map<string, StoredCluster>();
  /** Cluster ids by name: names are unique while a cluster exists. */
  private readonly idsByName = new Map<string, string>();
  /**
   * What listing and reading cost stays flat as the store grows (Sentinel pages through every
   * cluster every few seconds): clusters sorted per `order`, until one is added, removed or its
   * sort key changes; the filtered list per order and search, until anything changes; each
   * cluster's JSON, until that cluster changes.
   */
  private readonly sorted = new Map<string, StoredCluster[]>();
  private readonly filtered = new Map<string, StoredCluster[]>();
  private readonly views = new Map<string, string>();
  private readonly held = new Set<string>();
  /** Simulated adapters to hold (with a status) for clusters created later under a given name. */
  private readonly pendingHolds = new Map<string, Map<string, 'True' | 'False' | 'Unknown'>>();
  /** Data a simulated adapter reports instead of its own, by cluster name then adapter. */
  private readonly dataOverrides = new Map<string, Map<string, Record<string, unknown>>>();
  private readonly now: () => Date;

  constructor(private readonly options: HyperFleetStoreOptions) {
    this.now = options.now ?? (() => new Date());
  }

  get requiredAdapters(): readonly string[] {
    return this.options.requiredAdapters;
  }

  createCluster(body: unknown, by: string): Record<string, unknown> {
    const parsed = createSchema.safeParse(body);
    if (!parsed.success) throw zodProblem(parsed.error, 'cluster');
    const request = parsed.data;
    validateClusterSpec(request.spec, this.options.clusterSpecSchema ?? 'any');
    if (this.idsByName.has(request.name))
      throw conflict(`This Cluster already exists: name '${request.name}' is taken`);
    const id = request.id ?? uuid7(this.now().getTime());
    if (this.clusters.has(id)) throw conflict(`This Cluster already exists: id '${id}' is taken`);
    const time = this.now().toISOString();
    const cluster: StoredCluster = {
      id,
      name: request.name,
      labels: request.labels ?? {},
      spec: request.spec,
      generation: 1,
      created_time: time,
      updated_time: time,
      created_by: by,
      updated_by: by,
      conditions: [],
      statuses: new Map(),
    };
    this.clusters.set(id, cluster);
    this.idsByName.set(cluster.name, id);
    const holds = this.pendingHolds.get(request.name);
    this.pendingHolds.delete(request.name);
    for (const adapter of holds?.keys() ?? []) this.held.add(`${id}/${adapter}`);
    this.changed(cluster);
    for (const [adapter, available] of holds ?? []) this.reportAdapter(id, adapter, { available });
    return this.render(cluster);
  }

  /**
   * Makes a simulated adapter report `available` (and stop following generations) for the cluster
   * that will be created under `name`, so a test can start from "dns not Available" without a race.
   */
  holdForNewCluster(name: string, adapter: string, available: 'True' | 'False' | 'Unknown'): void {
    const holds = this.pendingHolds.get(name) ?? new Map<string, 'True' | 'False' | 'Unknown'>();
    holds.set(adapter, available);
    this.pendingHolds.set(name, holds);
  }

  /**
   * Makes a simulated adapter report `data` (merged over its own; null removes a key) for the
   * cluster named `name` from its next generation on, or from its creation: a placement move.
   */
  overrideSimulatedData(name: string, adapter: string, data: Record<string, unknown>): void {
    const byAdapter = this.dataOverrides.get(name) ?? new Map<string, Record<string, unknown>>();
    byAdapter.set(adapter, data);
    this.dataOverrides.set(name, byAdapter);
  }

  getCluster(id: string): Record<string, unknown> {
    return this.render(this.require(id));
  }

  /** The cluster as GET /clusters/{id} answers it, as JSON text. */
  getClusterJson(id: string): string {
    return this.json(this.require(id));
  }

  /** The stored cluster, for in-process tests and seeding. */
  cluster(id: string): StoredCluster | undefined {
    return this.clusters.get(id);
  }

  listClusters(query: ListQuery): Record<string, unknown> {
    return JSON.parse(this.listClustersJson(query)) as Record<string, unknown>;
  }

  /** One page of clusters as GET /clusters answers it, as JSON text. */
  listClustersJson(query: ListQuery): string {
    const matching = this.matching(query.search, query.order ?? 'created_time');
    const items = matching.slice((query.page - 1) * query.size, query.page * query.size);
    const head = {
      kind: 'ClusterList',
      page: query.page,
      size: items.length,
      total: matching.length,
    };
    const text = JSON.stringify(head);
    return `${text.slice(0, -1)},"items":[${items.map((c) => this.json(c)).join(',')}]}`;
  }

  /** Clusters that match `search`, in `order` (cached until a cluster changes). */
  private matching(search: string | null, order: string): StoredCluster[] {
    const matches = parseSearch(search); // first: a bad search is refused even when cached
    const key = `${order}\n${search ?? ''}`;
    let found = this.filtered.get(key);
    if (!found) {
      const all = this.inOrder(order);
      found = search === null || search.trim() === '' ? all : all.filter(matches);
      this.filtered.set(key, found);
    }
    return found;
  }

  private inOrder(order: string): StoredCluster[] {
    let sorted = this.sorted.get(order);
    if (!sorted) {
      const [field, direction] = order.split(/\s+/);
      const key =
        field === 'name' ? 'name' : field === 'updated_time' ? 'updated_time' : 'created_time';
      const descending = direction?.toLowerCase() === 'desc';
      sorted = [...this.clusters.values()].sort((a, b) => {
        const byKey = a[key].localeCompare(b[key]) || a.id.localeCompare(b.id);
        return descending ? -byKey : byKey;
      });
      this.sorted.set(order, sorted);
    }
    return sorted;
  }

  patchCluster(id: string, body: unknown, by: string): Record<string, unknown> {
    const cluster = this.require(id);
    const parsed = patchSchema.safeParse(body);
    if (!parsed.success) throw zodProblem(parsed.error, 'cluster patch');
    if (cluster.deleted_time)
      throw conflict(`Cluster '${id}' is being deleted and cannot be changed`);
    const spec = parsed.data.spec ? mergePatch(cluster.spec, parsed.data.spec) : cluster.spec;
    validateClusterSpec(spec, this.options.clusterSpecSchema ?? 'any');
    const labels = parsed.data.labels
      ? (mergePatch(cluster.labels, parsed.data.labels) as Record<string, string>)
      : cluster.labels;
    if (
      JSON.stringify(spec) !== JSON.stringify(cluster.spec) ||
      JSON.stringify(labels) !== JSON.stringify(cluster.labels)
    ) {
      cluster.spec = spec;
      cluster.labels = labels;
      cluster.generation += 1;
      cluster.updated_time = this.now().toISOString();
      cluster.updated_by = by;
      this.changed(cluster);
    }
    return this.render(cluster);
  }

  /** Soft delete: deleted_time, generation + 1; hard deletion follows when every required adapter is Finalized. */
  deleteCluster(id: string, by: string): Record<string, unknown> {
    const cluster = this.require(id);
    if (!cluster.deleted_time) {
      cluster.deleted_time = this.now().toISOString();
      cluster.deleted_by = by;
      cluster.generation += 1;
      cluster.updated_time = cluster.deleted_time;
      this.changed(cluster);
    }
    return this.render(cluster);
  }

  forceDelete(id: string, reason: unknown): void {
    this.require(id);
    if (typeof reason !== 'string' || reason.length === 0 || reason.length > 1024)
      throw invalid('reason is required (1-1024 characters)', [
        { field: 'reason', constraint: 'required', message: 'reason is required' },
      ]);
    this.remove(id);
  }

  listStatuses(id: string, page: number, size: number): Record<string, unknown> {
    const cluster = this.require(id);
    const all = [...cluster.statuses.values()];
    const items = all.slice((page - 1) * size, page * size).map(renderStatus);
    return { page, size: items.length, total: all.length, items };
  }

  /** The API's order: the body is validated (400) before the cluster is looked up (404). */
  putStatus(id: string, body: unknown): PutStatusResult {
    const now = this.now();
    const request = parseStatusRequest(body, now);
    const cluster = this.require(id);
    const write = decideStatusWrite(cluster, request);
    if (write.kind === 'discard') return { stored: false, cause: write.cause };
    if (write.kind === 'unchanged')
      return { stored: false, cause: write.cause, unchanged: write.status };
    cluster.statuses.set(write.status.adapter, write.status);
    this.forgetViews(cluster.id);
    cluster.conditions = aggregateConditions(cluster, this.options.requiredAdapters, now);
    this.hardDeleteIfFinalized(cluster);
    return { stored: true, status: write.status };
  }

  /**
   * Reports a status for an adapter the emulator plays (seeding and demos), at the cluster's
   * current generation. `hold` stops the simulation from overwriting it on later generations.
   */
  reportAdapter(
    id: string,
    adapter: string,
    report: {
      available: 'True' | 'False' | 'Unknown';
      data?: Record<string, unknown>;
      hold?: boolean;
      finalized?: boolean;
    },
  ): PutStatusResult {
    const cluster = this.require(id);
    if (report.hold === true) this.held.add(`${id}/${adapter}`);
    if (report.hold === false) this.held.delete(`${id}/${adapter}`);
    const ok = report.available === 'True';
    const conditions = [
      {
        type: 'Available',
        status: report.available,
        reason: ok ? 'Ready' : 'NotReady',
        message: `${adapter} is ${ok ? 'available' : 'not available'}`,
      },
      {
        type: 'Applied',
        status: 'True',
        reason: 'Applied',
        message: `${adapter} applied its resources`,
      },
      {
        type: 'Health',
        status: 'True',
        reason: 'NoErrors',
        message: `${adapter} reports no errors`,
      },
      ...(report.finalized
        ? [
            {
              type: 'Finalized',
              status: 'True',
              reason: 'CleanupConfirmed',
              message: `${adapter} cleaned up`,
            },
          ]
        : []),
    ];
    const previous = cluster.statuses.get(adapter);
    const observed = new Date(
      Math.max(this.now().getTime(), previous ? Date.parse(previous.observed_time) + 1 : 0),
    );
    return this.putStatus(id, {
      adapter,
      observed_generation: cluster.generation,
      observed_time: observed.toISOString(),
      conditions,
      ...(report.data ? { data: report.data } : {}),
    });
  }

  private require(id: string): StoredCluster {
    const cluster = this.clusters.get(id);
    if (!cluster) throw notFound('Cluster', id);
    return cluster;
  }

  /**
   * A simulated adapter takes new settings and reports again for every live cluster at its current
   * generation, as a reconfigured adapter does at its next reconcile. Unknown adapter: false.
   */
  reconfigureSimulated(adapter: string, settings: Readonly<Record<string, unknown>>): boolean {
    const simulation = this.options.simulatedAdapters?.[adapter];
    if (!simulation?.configure) return false;
    simulation.configure(settings);
    for (const cluster of this.clusters.values()) {
      if (cluster.deleted_time !== undefined || this.held.has(`${cluster.id}/${adapter}`)) continue;
      const override = this.dataOverrides.get(cluster.name)?.get(adapter);
      const own = simulation.data?.(cluster);
      const data = override ? mergePatch(own ?? {}, override) : own;
      this.reportAdapter(cluster.id, adapter, { available: 'True', ...(data ? { data } : {}) });
    }
    return true;
  }

  /** A new generation: recompute conditions and let simulated adapters catch up. */
  private changed(cluster: StoredCluster): void {
    // Created, or a new generation: updated_time (a sort key) changed too.
    this.sorted.clear();
    this.forgetViews(cluster.id);
    cluster.conditions = aggregateConditions(cluster, this.options.requiredAdapters, this.now());
    for (const [adapter, simulation] of Object.entries(this.options.simulatedAdapters ?? {})) {
      if (this.held.has(`${cluster.id}/${adapter}`) || !this.clusters.has(cluster.id)) continue;
      const deleting = cluster.deleted_time !== undefined;
      const override = this.dataOverrides.get(cluster.name)?.get(adapter);
      const own = simulation.data?.(cluster);
      const data = override ? mergePatch(own ?? {}, override) : own;
      this.reportAdapter(cluster.id, adapter, {
        available: deleting ? 'False' : 'True',
        finalized: deleting,
        ...(data ? { data } : {}),
      });
    }
  }

  private hardDeleteIfFinalized(cluster: StoredCluster): void {
    if (!cluster.deleted_time) return;
    const finalized = this.options.requiredAdapters.every((adapter) => {
      const status = cluster.statuses.get(adapter);
      return (
        status?.observed_generation === cluster.generation &&
        status.conditions.some((c) => c.type === 'Finalized' && c.status === 'True')
      );
    });
    if (finalized) this.remove(cluster.id);
  }

  private remove(id: string): void {
    const cluster = this.clusters.get(id);
    if (cluster && this.idsByName.get(cluster.name) === id) this.idsByName.delete(cluster.name);
    this.clusters.delete(id);
    this.sorted.clear();
    this.forgetViews(id);
  }

  /** Forgets what was rendered or filtered from the cluster's current state. */
  private forgetViews(id: string): void {
    this.views.delete(id);
    this.filtered.clear();
  }

  /** A copy the caller may keep or change: the store's own state is never handed out. */
  private render(cluster: StoredCluster): Record<string, unknown> {
    return JSON.parse(this.json(cluster)) as Record<string, unknown>;
  }

  private json(cluster: StoredCluster): string {
    let text = this.views.get(cluster.id);
    if (text === undefined) {
      text = JSON.stringify(this.view(cluster));
      this.views.set(cluster.id, text);
    }
    return text;
  }

  private view(cluster: StoredCluster): Record<string, unknown> {
    return {
      id: cluster.id,
      kind: 'Cluster',
      href: `/api/hyperfleet/v1/clusters/${cluster.id}`,
      name: cluster.name,
      labels: cluster.labels,
      spec: cluster.spec,
      generation: cluster.generation,
      created_time: cluster.created_time,
      updated_time: cluster.updated_time,
      created_by: cluster.created_by,
      updated_by: cluster.updated_by,
      ...(cluster.deleted_time
        ? { deleted_time: cluster.deleted_time, deleted_by: cluster.deleted_by }
        : {}),
      status: { conditions: cluster.conditions },
    };
  }
}

/**
 * An adapter status as the API presents it (presenters PresentAdapterStatus): `data` always (`{}`
 * when none was reported), no `observed_time` (it is `last_report_time`).
 */
export function renderStatus(status: StoredAdapterStatus): Record<string, unknown> {
  const { observed_time: _observed, ...rest } = status;
  return structuredClone({ ...rest, data: rest.data ?? {} });
}

/** RFC 7386 merge of plain objects (null removes a key). */
function mergePatch(
  target: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const result: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else if (
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      result[key] &&
      typeof result[key] === 'object' &&
      !Array.isArray(result[key])
    ) {
      result[key] = mergePatch(
        result[key] as Record<string, unknown>,
        value as Record<string, unknown>,
      );
    } else result[key] = value;
  }
  return result;
}
