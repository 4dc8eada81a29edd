import type { v2 } from '@google-cloud/run';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { parseSecretManagerName } from '../../../shared/gcp/secret-manager-names';
import type { HyperFleetClient } from '../../../shared/hyperfleet/client';
import type { AdapterStatus } from '../../../shared/hyperfleet/schemas';
import { parseDurationMs } from '../../../shared/config/durations';
import { DEFAULT_NOT_CONVERGED_AFTER } from '../../../functions/fleet/args';
import { fleetReport, type FleetReport } from '../../../functions/fleet/report/fleet-report';
import type { KubeReader } from '../../common/kube-admin';
import type { DeadLetterView } from './dead-letters';

/**
 * What the console shows, built from the stack's own APIs. Ids, states, names and labels only:
 * never a cluster spec, a Secret's data, a secret version's payload or an execution's full env.
 */
export interface Snapshot {
  readonly at: string;
  /** `fleet report`'s summary of the same clusters and statuses (functions/fleet/report/). */
  readonly fleet: FleetView;
  readonly clusters: ClusterView[];
  readonly executions: ExecutionView[];
  readonly managementClusters: { name: string; secrets: KubeSecretView[]; error?: string }[];
  readonly deadLetters: DeadLetterView[];
  readonly faults: { component: string; match: string; status: unknown; remaining: number }[];
  readonly errors: string[];
}
/** The fleet report without its rows (the cluster cards below are the rows). */
export type FleetView = Pick<
  FleetReport,
  'summary' | 'not_converged_after_seconds' | 'launch_queue' | 'exit_code'
>;
export interface ClusterView {
  id: string;
  name: string;
  generation: number;
  deleting: boolean;
  conditions: { type: string; status: string; reason: string; observedGeneration: number | null }[];
  adapters: {
    adapter: string;
    observedGeneration: number | null;
    conditions: { type: string; status: string; reason: string }[];
    data: Record<string, string>;
  }[];
  secretVersions: { id: string; state: string; created: string }[];
}
export interface ExecutionView {
  id: string;
  clusterId: string;
  operation: string;
  generation: string;
  state: 'running' | 'succeeded' | 'failed' | 'pending';
  message: string;
  started: string | null;
  durationMs: number | null;
  attempts: number;
}
export interface KubeSecretView {
  namespace: string;
  name: string;
  type: string;
  labels: Record<string, string>;
  resourceVersion: string;
}

/** Our status data fields worth showing (no payload is ever in status data; this keeps it short). */
const SHOWN_DATA = [
  'secret_version',
  'pull_secret_sha256_prefix',
  'management_cluster',
  'namespace',
  'reason',
  'execution_reason',
];
/** Execution env overrides worth showing; the rest stays out of the page. */
const SHOWN_ENV = ['CLUSTER_ID', 'GENERATION', 'OPERATION'];

export interface SnapshotSources {
  readonly tenant: HyperFleetClient;
  readonly system: HyperFleetClient;
  readonly secretManager: SecretManagerServiceClient;
  readonly executions: v2.ExecutionsClient;
  readonly job: string;
  readonly kube: Record<string, KubeReader>;
  readonly faults: () => Promise<Snapshot['faults']>;
  readonly deadLetters: () => DeadLetterView[];
  /** The launch queue's name and state (GetQueue as the operator), when the stack has one. */
  readonly launchQueue?: () => Promise<{ name: string; state: string }>;
}

/** As `fleet report` without --not-converged-after. */
const NOT_CONVERGED_AFTER_MS = parseDurationMs(DEFAULT_NOT_CONVERGED_AFTER)!;

const seconds = (t: { seconds?: unknown; nanos?: unknown } | null | undefined) =>
  t && t.seconds !== undefined && t.seconds !== null
    ? Number(t.seconds) * 1000 + Number(t.nanos ?? 0) / 1e6
    : undefined;
const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export async function takeSnapshot(s: SnapshotSources): Promise<Snapshot> {
  const errors: string[] = [];
  const soft = async <T>(what: string, fallback: T, read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      errors.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      return fallback;
    }
  };
  const clusters = await soft('HyperFleet API', [], () => s.tenant.listAllClusters());
  const read: AdapterStatus[][] = [];
  const clusterViews = await Promise.all(
    clusters.map(async (cluster, index): Promise<ClusterView> => {
      const statuses = await soft(`statuses of ${cluster.id}`, [], () =>
        s.system.listStatuses(cluster.id),
      );
      read[index] = statuses;
      const own = statuses.find((st) => st.adapter === 'pullsecret');
      const secretPath =
        typeof own?.data?.secret_path === 'string' ? own.data.secret_path : undefined;
      const versions = secretPath
        ? await soft(`versions of ${secretPath}`, [], async () => {
            const [list] = await s.secretManager.listSecretVersions({ parent: secretPath });
            return list.map((v) => ({
              // The version id only: the service names the project by number, the status by id.
              id: parseSecretManagerName(v.name ?? '')?.version ?? '',
              state: String(v.state ?? ''),
              created: iso(seconds(v.createTime as never)) ?? '',
            }));
          }).catch(() => [])
        : [];
      return {
        id: cluster.id,
        name: cluster.name,
        generation: cluster.generation,
        deleting: Boolean(cluster.deleted_time),
        conditions: (cluster.status?.conditions ?? []).map((c) => ({
          type: c.type,
          status: c.status,
          reason: c.reason ?? '',
          observedGeneration: c.observed_generation ?? null,
        })),
        adapters: statuses.map((st) => ({
          adapter: st.adapter,
          observedGeneration: st.observed_generation ?? null,
          conditions: st.conditions.map((c) => ({
            type: c.type,
            status: c.status,
            reason: c.reason ?? '',
          })),
          data: Object.fromEntries(
            SHOWN_DATA.filter(
              (k) => typeof st.data?.[k] === 'string' || typeof st.data?.[k] === 'number',
            ).map((k) => [k, String(st.data?.[k])]),
          ),
        })),
        secretVersions: versions,
      };
    }),
  );
  const executions = await soft('Cloud Run', [] as ExecutionView[], async () => {
    const [list] = await s.executions.listExecutions(
      { parent: s.job, pageSize: 50 },
      { autoPaginate: false },
    );
    return list.map((e): ExecutionView => {
      const env = Object.fromEntries(
        (e.template?.containers?.[0]?.env ?? [])
          .filter((v) => SHOWN_ENV.includes(String(v.name)))
          .map((v) => [String(v.name), String(v.value ?? '')]),
      );
      const completed = e.conditions?.find((c) => c.type === 'Completed');
      const state = String(completed?.state ?? '');
      const started = seconds(e.startTime as never);
      const ended = seconds(e.completionTime as never);
      return {
        id:
          String(e.name ?? '')
            .split('/')
            .pop() ?? '',
        clusterId: env.CLUSTER_ID ?? '',
        operation: env.OPERATION ?? 'apply',
        generation: env.GENERATION ?? '',
        state:
          state === 'CONDITION_SUCCEEDED'
            ? 'succeeded'
            : state === 'CONDITION_FAILED'
              ? 'failed'
              : started
                ? 'running'
                : 'pending',
        message: String(completed?.message ?? ''),
        started: iso(started),
        durationMs: started !== undefined ? (ended ?? Date.now()) - started : null,
        attempts: 1 + Number(e.retriedCount ?? 0),
      };
    });
  });
  const managementClusters = await Promise.all(
    Object.entries(s.kube).map(async ([name, kube]) => {
      try {
        const list = (await kube.get('/api/v1/secrets?labelSelector=managed-by%3Dhyperfleet')) as
          { items?: { metadata?: Record<string, unknown>; type?: string }[] } | undefined;
        return {
          name,
          secrets: (list?.items ?? []).map((item) => ({
            namespace: String(item.metadata?.namespace ?? ''),
            name: String(item.metadata?.name ?? ''),
            type: String(item.type ?? ''),
            labels: (item.metadata?.labels as Record<string, string> | undefined) ?? {},
            resourceVersion: String(item.metadata?.resourceVersion ?? ''),
          })),
        };
      } catch (error) {
        return { name, secrets: [], error: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
  const launchQueue = s.launchQueue
    ? await soft('Cloud Tasks', undefined, s.launchQueue)
    : undefined;
  const report = fleetReport(
    clusters.map((cluster, index) => ({ cluster, statuses: read[index] ?? [] })),
    {
      now: new Date(),
      notConvergedAfterMs: NOT_CONVERGED_AFTER_MS,
      ...(launchQueue ? { launchQueue } : {}),
    },
  );
  return {
    at: new Date().toISOString(),
    fleet: {
      summary: report.summary,
      not_converged_after_seconds: report.not_converged_after_seconds,
      ...(report.launch_queue ? { launch_queue: report.launch_queue } : {}),
      exit_code: report.exit_code,
    },
    clusters: clusterViews,
    executions,
    managementClusters,
    deadLetters: s.deadLetters(),
    faults: await soft('faults', [], s.faults),
    errors,
  };
}
