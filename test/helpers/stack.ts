import { randomUUID } from 'node:crypto';
import { currentNamespace, type NamespaceLayout } from '../../shared/pull-secret/namespace-layout';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PubSub, type Subscription } from '@google-cloud/pubsub';
import type { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import type { FaultRuleInput, TakenFault } from '../../emulators/common/fault-injector';
import type { RequestRecord } from '../../emulators/common/request-log';
import { demoClusterSpec } from '../../emulators/pullsecret/stack/demo';
import { hostedClustersPath } from '../../emulators/pullsecret/hypershift/hosted-cluster';
import { isReady } from '../../emulators/pullsecret/stack/handoff';
import { managementClusterReaders, type KubeReader } from '../../emulators/common/kube-admin';
import { loadLocalStackConfig } from '../../emulators/pullsecret/stack/config';
import {
  DEFAULT_MANAGEMENT_CLUSTER,
  MANAGEMENT_CLUSTERS,
  TOPICS,
} from '../../emulators/pullsecret/stack/layout';
import { spreadOver } from '../../emulators/pullsecret/hyperfleet/simulated-adapters';
import {
  PlacementSimulator,
  placementOf,
  type PlacedNamespace,
} from '../../emulators/pullsecret/stack/placement';
import type {
  RestartableComponent,
  Stack,
  StackDescription,
  StackOptions,
} from '../../emulators/pullsecret/stack/stack-description';
import { startStack } from '../../emulators/pullsecret/stack/start-stack';
import type { HyperFleetClient } from '../../shared/hyperfleet/client';
import { readOwnStatus, type OwnStatus } from '../../shared/status/own-status';
import type { Cluster } from '../../shared/hyperfleet/schemas';
import { metadataServerToken } from './metadata-token';
import { ROOT } from './run-process';
import { RecordingLogger } from './recording-logger';
import { stackSecretManagerClient } from './secret-manager';
import { localHyperFleetClient } from '../../emulators/pullsecret/hyperfleet/local-hyperfleet-client';
import { runDoctorExecution } from '../../emulators/pullsecret/stack/doctor-execution';
import type { CheckResult } from '../../functions/pull-secret-job/doctor/check';
import { DOCTOR_RESULT_KEY } from '../../functions/pull-secret-job/doctor/render';

/** `kube-apiserver` means every management cluster's emulator at once. */
type Component =
  'secret-manager' | 'kube-apiserver' | 'hyperfleet-api' | 'cloud-run' | 'cloud-tasks';

/** A request one of the management clusters' emulators saw, and which one. */
export type KubeRequest = RequestRecord & { readonly managementCluster: string };

/** Where a HostedCluster is. */
export interface HostedClusterFound {
  readonly managementCluster: string;
  readonly object: Record<string, unknown>;
}

/** The GCP project the demo cluster spec puts pull secrets in. */
export const CUSTOMER_PROJECT = 'demo-customer-project';

/** The whole local system, started for a test file on free ports, with handles for assertions. */
export interface TestStack {
  readonly d: StackDescription;
  readonly api: HyperFleetClient;
  /** The default management cluster's admin reader (mgmt-1). */
  readonly kube: KubeReader;
  /** An admin reader per management cluster, by name. */
  readonly kubes: ReadonlyMap<string, KubeReader>;
  /**
   * A Google access token of the job's service account from the stack's metadata server, as the
   * job gets it (both scopes by default): acting as the job in every management cluster.
   */
  jobToken(scopes?: readonly string[]): Promise<string>;
  /** Where placement put the cluster at its current generation (undefined until it reported). */
  placeOf(id: string): Promise<PlacedNamespace | undefined>;
  /** The cluster's Kubernetes Secret (`{id}-pull-secret`) where placement put it now. */
  secretOf(id: string): Promise<Record<string, unknown> | undefined>;
  /** The cluster's Kubernetes Secret in one management cluster and namespace. */
  secretIn(
    managementCluster: string,
    namespace: string,
    id: string,
  ): Promise<Record<string, unknown> | undefined>;
  /** Every Secret labelled with the cluster id, in every management cluster, as `mgmt-N ns/name`. */
  ourSecrets(id: string): Promise<string[]>;
  /** Every HostedCluster of the cluster (by its cluster-id label), in every management cluster. */
  hostedClusters(id: string): Promise<HostedClusterFound[]>;
  /** Makes placement report `data` (merged over its own) for the named cluster from its next generation on. */
  placeNext(name: string, data: Record<string, unknown>): Promise<void>;
  /** A move: placement reports `data` at a new generation (a labels-only PATCH); returns that generation. */
  move(id: string, data: Record<string, unknown>): Promise<number>;
  /** Resolves when Reconciled=True (Ready: every required adapter, hypershift included) at the current generation. */
  ready(id: string, timeoutMs?: number): Promise<void>;
  readonly sm: SecretManagerServiceClient;
  /**
   * Creates a GCP-ready cluster (the simulated adapters report at once) and returns its id;
   * `pullSecret` undefined: none in its spec (the stack's platform default applies).
   */
  createCluster(
    name: string,
    pullSecret: string | undefined,
    extraSpec?: Record<string, unknown>,
  ): Promise<string>;
  /** Resolves when PullsecretSuccessful=True at `generation` (default: the cluster's current one). */
  converged(id: string, generation?: number, timeoutMs?: number): Promise<void>;
  own(id: string): Promise<OwnStatus | undefined>;
  /** Secret Manager versions of the cluster's secret, newest first, as `N:STATE`. */
  versions(id: string): Promise<string[]>;
  executionsFor(
    id: string,
  ): Promise<{ name: string; done: boolean; env: Record<string, string> }[]>;
  /**
   * The cluster's executions that did the work: all but those whose job result says `duplicate`
   * (an execution that lost the Secret Manager claim to another and wrote nothing). With two
   * adapter instances a duplicate delivery can launch a second execution; what must be one is
   * the execution that works, and the effects.
   */
  workingExecutionsFor(
    id: string,
  ): Promise<{ name: string; done: boolean; env: Record<string, string> }[]>;
  /** Writes (POST/PUT/PATCH/DELETE) the management clusters saw on a cluster's Secret. */
  kubeWrites(id: string): Promise<KubeRequest[]>;
  /** Injects a fault into an emulator through its admin API. */
  fault(component: Component, rule: FaultRuleInput): Promise<void>;
  clearFaults(component: Component): Promise<void>;
  /**
   * The faults an emulator handed out, each with the request's key and the caller's User-Agent:
   * the proof that the component a test names received the fault (or is held by it right now).
   */
  faultsTaken(component: Exclude<Component, 'kube-apiserver'>): Promise<TakenFault[]>;
  requests(component: Component): Promise<RequestRecord[]>;
  /** Every execution the Cloud Run emulator ran (with its env overrides). */
  executions(): Promise<{ name: string; done: boolean; env: Record<string, string> }[]>;
  killNext(count: number, afterMs: number): Promise<void>;
  /**
   * Sets the verbs of the job's ClusterRole (hyperfleet-pullsecret-writer, applied from Terraform's
   * template) on Secrets in every management cluster, as an operator editing it would.
   */
  setJobSecretVerbs(verbs: readonly string[]): Promise<void>;
  /**
   * Runs `pull-secret doctor ARGS` as an execution of the stack's job (what `npm run doctor` and
   * `gcloud run jobs execute --args=doctor` do), with optional env overrides; its checks parsed
   * from the result line, and the whole output.
   */
  doctor(args: readonly string[], env?: Readonly<Record<string, string>>): Promise<DoctorRun>;
  /** The Secret Manager emulator's IAM admin API (`/_emulator/iam...`). */
  secretManagerIam(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<unknown>;
  /** The Eventarc emulator's admin API (`/_emulator/triggers...`). */
  eventarcAdmin(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown>;
  /** Stops creating management namespaces for newly placed clusters until resumed. */
  pausePlacement(paused: boolean): void;
  /** `adapter` restarts every adapter instance; `adapter-2` only that one. */
  restart(component: RestartableComponent): Promise<void>;
  /** `terraform apply` of another namespace layout (Stack.relayout). */
  relayout(layout: NamespaceLayout): Promise<void>;
  /** The namespace of the cluster's pull secret under the stack's layout now. */
  namespaceOf(id: string): string;
  /** Messages waiting in the three dead-letter topics. */
  deadLetters(): Promise<number>;
  /** Every message published on the system's topics so far (for secret scans). */
  tappedMessages(): string[];
  /** The text of every log file of the stack (components and job executions). */
  logText(): string;
  waitFor<T>(
    what: string,
    probe: () => Promise<T | undefined | false>,
    timeoutMs?: number,
  ): Promise<T>;
  cluster(id: string): Promise<Cluster | undefined>;
  stop(): Promise<void>;
}

/** What a doctor execution printed: its rows, how it ended, and its whole output. */
export interface DoctorRun {
  readonly succeeded: boolean;
  readonly output: string;
  readonly checks: readonly CheckResult[];
  /** The row of that name; throws naming the rows there are when it is missing. */
  check(name: string): CheckResult;
}

/** Starts the stack exactly as `npm start` does (separate processes), with compressed timings. */
export async function startTestStack(overrides: Partial<StackOptions> = {}): Promise<TestStack> {
  process.env.METADATA_SERVER_DETECTION = 'none';
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pullsecret-e2e-'));
  // A test's adapterEnv adds to the defaults below (it used to replace them, spread last).
  const { adapterEnv, ...rest } = overrides;
  const stack: Stack = await startStack({
    root: ROOT,
    workDir,
    // As `npm start`: PULLSECRET_ADAPTER_INSTANCES (default 2) unless the test file says otherwise.
    adapterInstances: loadLocalStackConfig(process.env).adapterInstances,
    // LOCAL_DELIVERY=eventarc runs any e2e file with Eventarc-style delivery.
    delivery: loadLocalStackConfig(process.env).delivery,
    // MANAGEMENT_NAMESPACE_TEMPLATE=clusters runs any e2e file in the shared-namespace layout.
    namespaceLayout: loadLocalStackConfig(process.env).namespaceLayout,
    sentinel: { pollInterval: '500ms', notReadyInterval: '1s', readyInterval: '2s' },
    adapterEnv: {
      RETRY_BACKOFF_BASE: '1s',
      RETRY_BACKOFF_MAX: '5s',
      STATUS_HEARTBEAT_INTERVAL: '10s',
      ...adapterEnv,
    },
    jobTimeoutSeconds: 60,
    ...rest,
  });
  const d = stack.description;
  let namespaceLayout = d.namespaceLayout;
  // Tests act as a user (a tenant) with the stack's token: the local API runs JWT and tenancy on.
  const tokenOption = d.env.HYPERFLEET_API_AUTH_TOKEN_PATH
    ? { tokenFile: d.env.HYPERFLEET_API_AUTH_TOKEN_PATH }
    : {};
  const api = localHyperFleetClient(d.endpoints.hyperfleetApi, new RecordingLogger(), {
    retryAttempts: 3,
    caller: 'tenant',
    userAgent: 'test',
    ...tokenOption,
  });
  const kubes = managementClusterReaders(d.managementClusters);
  const kube = kubes.get(DEFAULT_MANAGEMENT_CLUSTER)!;
  const jobToken = (scopes?: readonly string[]) =>
    metadataServerToken(d.endpoints.metadataServer, scopes);
  const sm = stackSecretManagerClient(d);
  let pubsub = new PubSub({
    projectId: d.project,
    apiEndpoint: d.endpoints.pubsub,
    emulatorMode: true,
  });

  // Taps: a pull subscription per topic records every message the system publishes.
  const tapped: string[] = [];
  let taps: Subscription[] = [];
  const openTaps = async () => {
    taps = await Promise.all(
      Object.values(TOPICS).map(async (topic) => {
        const [subscription] = await pubsub
          .topic(topic)
          .createSubscription(`test-tap-${topic}`)
          .catch(() => [pubsub.subscription(`test-tap-${topic}`)]);
        subscription.on(
          'message',
          (message: { data: Buffer; attributes: Record<string, string>; ack: () => void }) => {
            tapped.push(message.data.toString('utf8') + JSON.stringify(message.attributes));
            message.ack();
          },
        );
        return subscription;
      }),
    );
  };
  await openTaps();

  const placement = new PlacementSimulator(
    // Placement is a system adapter: it PUTs its status with the system header, not as a tenant.
    localHyperFleetClient(d.endpoints.hyperfleetApi, new RecordingLogger(), {
      ...tokenOption,
      userAgent: 'test-placement',
    }),
    kubes,
    DEFAULT_MANAGEMENT_CLUSTER,
  );
  let placing = true;
  let placementPaused = false;
  const placementLoop = (async () => {
    while (placing) {
      if (!placementPaused) await placement.tick().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();

  const adminBase = (component: Component) =>
    component === 'secret-manager'
      ? d.endpoints.secretManagerAdmin
      : component === 'cloud-run'
        ? d.endpoints.cloudRunAdmin
        : component === 'cloud-tasks'
          ? d.endpoints.cloudTasksAdmin
          : d.endpoints.hyperfleetApi;
  const admin = async (
    component: Component,
    method: string,
    adminPath: string,
    body?: unknown,
  ): Promise<unknown> => {
    if (component === 'kube-apiserver') {
      const answers: Record<string, unknown> = {};
      for (const [name, reader] of kubes) {
        const answer = await reader.admin(method, adminPath, body);
        if (answer.status >= 300)
          throw new Error(
            `${method} ${name} /_emulator${adminPath}: ${answer.status} ${answer.body}`,
          );
        answers[name] = JSON.parse(answer.body || '{}') as unknown;
      }
      return answers;
    }
    const url = `${adminBase(component)}/_emulator${adminPath}`;
    const response = await fetch(url, {
      method,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok)
      throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
    return response.json();
  };

  const waitFor = async <T>(
    what: string,
    probe: () => Promise<T | undefined | false>,
    timeoutMs = 30_000,
  ): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        const value = await probe();
        if (value !== undefined && value !== false) return value;
      } catch (error) {
        last = error;
      }
      if (Date.now() > deadline)
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}; logs in ${d.logDir}`,
        );
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const executions = async () =>
    (
      (await admin('cloud-run', 'GET', '/executions')) as {
        executions: { name: string; done: boolean; env: Record<string, string> }[];
      }
    ).executions;
  const kubeRequests = async (): Promise<KubeRequest[]> =>
    Object.entries(
      (await admin('kube-apiserver', 'GET', '/requests')) as Record<
        string,
        { requests: RequestRecord[] }
      >,
    ).flatMap(([managementCluster, answer]) =>
      answer.requests.map((r) => ({ ...r, managementCluster })),
    );
  const requests = async (component: Component): Promise<RequestRecord[]> =>
    component === 'kube-apiserver'
      ? kubeRequests()
      : ((await admin(component, 'GET', '/requests')) as { requests: RequestRecord[] }).requests;
  const placeOf = async (id: string) =>
    (await api.listStatuses(id))
      .filter((s) => s.adapter === 'placement')
      .map((s) => placementOf(s.data, DEFAULT_MANAGEMENT_CLUSTER))[0];
  const secretIn = (managementCluster: string, namespace: string, id: string) => {
    const reader = kubes.get(managementCluster);
    if (!reader) throw new Error(`no management cluster ${managementCluster}`);
    return reader.get(`/api/v1/namespaces/${namespace}/secrets/${id}-pull-secret`);
  };
  const placeNext = async (name: string, data: Record<string, unknown>) => {
    await admin('hyperfleet-api', 'POST', '/simulated-data', {
      cluster_name: name,
      adapter: 'placement',
      data,
    });
  };

  return {
    d,
    api,
    kube,
    kubes,
    jobToken,
    sm,
    placeOf,
    secretOf: async (id) => {
      const place = await placeOf(id);
      return place ? secretIn(place.managementCluster, place.namespace, id) : undefined;
    },
    secretIn,
    ourSecrets: async (id) => {
      const found: string[] = [];
      for (const [managementCluster, reader] of kubes) {
        const list = (await reader.get(
          `/api/v1/secrets?labelSelector=${encodeURIComponent(`cluster-id=${id}`)}`,
        )) as { items?: { metadata: { namespace: string; name: string } }[] } | undefined;
        for (const item of list?.items ?? [])
          found.push(`${managementCluster} ${item.metadata.namespace}/${item.metadata.name}`);
      }
      return found.sort();
    },
    hostedClusters: async (id) => {
      const found: HostedClusterFound[] = [];
      for (const [managementCluster, reader] of kubes) {
        const list = (await reader.get(
          `${hostedClustersPath()}?labelSelector=${encodeURIComponent(`hyperfleet.io/cluster-id=${id}`)}`,
        )) as { items?: Record<string, unknown>[] } | undefined;
        for (const object of list?.items ?? []) found.push({ managementCluster, object });
      }
      return found;
    },
    placeNext,
    move: async (id, data) => {
      const cluster = await api.getCluster(id);
      await placeNext(cluster.name, data);
      const moved = await api.patchCluster(id, {
        labels: { 'moved-at-generation': String(cluster.generation + 1) },
      });
      return moved.generation;
    },
    ready: async (id, timeoutMs = 30_000) => {
      await waitFor(
        `cluster ${id} Reconciled=True`,
        async () => isReady(await api.findCluster(id)),
        timeoutMs,
      );
    },
    createCluster: async (name, pullSecret, extraSpec = {}) => {
      const { pullSecret: inSpec, ...withoutPullSecret } = demoClusterSpec(
        pullSecret ?? '',
        CUSTOMER_PROJECT,
      );
      const spec =
        pullSecret === undefined ? withoutPullSecret : { ...withoutPullSecret, pullSecret: inSpec };
      return (await api.createCluster({ name, spec: { ...spec, ...extraSpec } })).id;
    },
    converged: async (id, generation, timeoutMs = 30_000) => {
      await waitFor(
        `cluster ${id} PullsecretSuccessful=True${generation ? ` at generation ${generation}` : ''}`,
        async () => {
          const cluster = await api.findCluster(id);
          const condition = cluster?.status?.conditions.find(
            (c) => c.type === 'PullsecretSuccessful',
          );
          const target = generation ?? cluster?.generation;
          return (
            condition?.status === 'True' &&
            condition.observed_generation === target &&
            cluster?.generation === target
          );
        },
        timeoutMs,
      );
    },
    own: async (id) => readOwnStatus(await api.listStatuses(id)),
    versions: async (id) => {
      const [list] = await sm.listSecretVersions({
        parent: `projects/${CUSTOMER_PROJECT}/secrets/hyperfleet-${id}-pull-secret`,
      });
      return list.map((v) => `${v.name?.split('/').pop()}:${v.state}`);
    },
    executionsFor: async (id) => (await executions()).filter((e) => e.env.CLUSTER_ID === id),
    workingExecutionsFor: async (id) => {
      // A duplicate may finish after the holder converged the cluster: wait until all have ended.
      const all = await waitFor(`every execution of ${id} to end`, async () => {
        const mine = (await executions()).filter((e) => e.env.CLUSTER_ID === id);
        return mine.every((e) => e.done) ? mine : undefined;
      });
      return all.filter((e) => jobOutcome(d.logDir, e.name) !== 'stood-aside');
    },
    kubeWrites: async (id) =>
      (await kubeRequests()).filter(
        (r) =>
          ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) &&
          // The job's reads are dry-run test patches: authorized and admitted, never stored.
          !r.dryRun &&
          isSecretOf(r, id) &&
          Number(r.outcome) < 300,
      ),
    fault: async (component, rule) => {
      await admin(component, 'POST', '/faults', rule);
    },
    clearFaults: async (component) => {
      await admin(component, 'DELETE', '/faults');
    },
    faultsTaken: async (component) =>
      ((await admin(component, 'GET', '/faults')) as { taken: TakenFault[] }).taken,
    requests,
    executions,
    killNext: async (count, afterMs) => {
      await admin('cloud-run', 'POST', '/kill-next', { count, afterMs });
    },
    setJobSecretVerbs: async (verbs) => {
      const path = '/apis/rbac.authorization.k8s.io/v1/clusterroles/hyperfleet-pullsecret-writer';
      for (const reader of kubes.values()) {
        const role = await reader.get(path);
        if (!role) throw new Error(`No job ClusterRole at ${reader.server}`);
        const answer = await reader.request('PUT', path, {
          ...role,
          rules: [{ apiGroups: [''], resources: ['secrets'], verbs }],
        });
        if (answer.status !== 200) throw new Error(`PUT ${path}: ${answer.status} ${answer.body}`);
      }
    },
    doctor: async (args, env) => {
      const run = await runDoctorExecution(d, args, env ? { env } : {});
      const line = run.output
        .split('\n')
        .reverse()
        .find((l) => l.includes(`"${DOCTOR_RESULT_KEY}"`));
      if (!line) throw new Error(`the doctor printed no result line:\n${run.output}`);
      const checks = (JSON.parse(line) as Record<string, { checks: CheckResult[] }>)[
        DOCTOR_RESULT_KEY
      ]!.checks;
      return {
        succeeded: run.succeeded,
        output: run.output,
        checks,
        check: (name) => {
          const found = checks.find((c) => c.name === name);
          if (!found)
            throw new Error(
              `no doctor check ${name}; there are: ${checks.map((c) => c.name).join(', ')}`,
            );
          return found;
        },
      };
    },
    secretManagerIam: async (method, adminPath, body) => {
      const response = await fetch(`${d.endpoints.secretManagerAdmin}/_emulator${adminPath}`, {
        method,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      if (!response.ok)
        throw new Error(`${method} ${adminPath}: ${response.status} ${await response.text()}`);
      return response.json();
    },
    eventarcAdmin: async (method, adminPath, body) => {
      const response = await fetch(`${d.endpoints.eventarc}/_emulator${adminPath}`, {
        method,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      if (!response.ok)
        throw new Error(`${method} ${adminPath}: ${response.status} ${await response.text()}`);
      return response.json();
    },
    pausePlacement: (paused) => {
      placementPaused = paused;
    },
    relayout: async (layout) => {
      await stack.relayout(layout);
      namespaceLayout = layout;
    },
    namespaceOf: (id) => currentNamespace(namespaceLayout, id),
    restart: async (component) => {
      if (component === 'pubsub') {
        await Promise.all(taps.map((t) => t.close()));
        await pubsub.close();
      }
      await stack.restart(component);
      if (component === 'pubsub') {
        pubsub = new PubSub({
          projectId: d.project,
          apiEndpoint: d.endpoints.pubsub,
          emulatorMode: true,
        });
        await openTaps();
      }
    },
    deadLetters: async () => {
      let total = 0;
      // Eventarc mode has no dead-letter topics (as Eventarc's subscription): nothing can land.
      for (const sub of Object.values(d.subscriptions)) {
        if (!sub.deadLetterTopic) continue;
        const inspect = pubsub.subscription(`${sub.deadLetterTopic.split('/').pop()}-inspect`);
        total += await new Promise<number>((resolve) => {
          let count = 0;
          const onMessage = (message: { ack: () => void }) => {
            count++;
            message.ack();
          };
          inspect.on('message', onMessage);
          setTimeout(() => {
            inspect.removeListener('message', onMessage);
            void inspect.close().then(() => resolve(count));
          }, 1500);
        });
      }
      return total;
    },
    tappedMessages: () => [...tapped],
    logText: () => {
      const files = [d.logDir, path.join(d.logDir, 'jobs')].flatMap((dir) =>
        fs
          .readdirSync(dir)
          .filter((f) => f.endsWith('.log'))
          .map((f) => path.join(dir, f)),
      );
      return files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    },
    waitFor,
    cluster: (id) => api.findCluster(id),
    stop: async () => {
      placing = false;
      await placementLoop;
      await Promise.all(taps.map((t) => t.close().catch(() => undefined)));
      await sm.close();
      await pubsub.close();
      await stack.stop();
    },
  };
}

/** The outcome in an execution's last job result line (its log file), if it wrote one. */
function jobOutcome(logDir: string, execution: string): string | undefined {
  const file = path.join(logDir, 'jobs', `${execution.split('/').pop()}.log`);
  if (!fs.existsSync(file)) return undefined;
  const line = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .reverse()
    .find((l) => l.includes('"pullsecret_job_result"'));
  if (!line) return undefined;
  try {
    const parsed = JSON.parse(line) as { pullsecret_job_result?: { outcome?: string } };
    return parsed.pullsecret_job_result?.outcome;
  } catch {
    return undefined;
  }
}

/**
 * A request on the cluster's Kubernetes Secret, in whichever namespace: its path names it, or a
 * create in a namespace's collection carries its name (one shared namespace holds every cluster's).
 */
function isSecretOf(request: KubeRequest, id: string): boolean {
  const name = `${id}-pull-secret`;
  const path = /^\/api\/v1\/namespaces\/[^/]+\/secrets(?:\/([^/]+))?$/.exec(request.target);
  if (!path) return false;
  return path[1] === name || (path[1] === undefined && request.name === name);
}

/** A cluster id that the placement simulation puts on `cluster` (it spreads by a hash of the id). */
export function idOn(cluster: string): string {
  for (;;) {
    const id = randomUUID();
    if (spreadOver(MANAGEMENT_CLUSTERS, id) === cluster) return id;
  }
}
