import type { NamespaceLayout } from '../../../shared/pull-secret/namespace-layout';
import type { AdapterInstances } from './adapter-instances';
import type { DeliveryMode } from './eventarc-conversion';
import type { ManagementClusterMode } from './layout';

export interface StackOptions {
  /** Repository root (dist/ and node_modules/ live there). */
  readonly root: string;
  /** Where logs, the kubeconfig and state go (`.local` for npm start, a temp dir in tests). */
  readonly workDir: string;
  readonly logLevel?: 'debug' | 'info';
  /** Sentinel timing; the local defaults are short so that the system reacts quickly. */
  readonly sentinel?: { pollInterval?: string; notReadyInterval?: string; readyInterval?: string };
  /** Extra environment for the adapter, the reporter and the job (tests tune timings with it). */
  readonly adapterEnv?: Record<string, string>;
  readonly reporterEnv?: Record<string, string>;
  readonly jobEnv?: Record<string, string>;
  readonly jobTimeoutSeconds?: number;
  /**
   * Adapter processes behind the round-robin proxy (default 2): Cloud Run scales the function out,
   * so duplicate deliveries reach different processes at once (PULLSECRET_ADAPTER_INSTANCES).
   */
  readonly adapterInstances?: number;
  /**
   * `push` (default): push subscriptions post to the functions. `eventarc`: the pushes pass through
   * a converter that delivers them as Eventarc does (binary-mode CloudEvents), as LOCAL_DELIVERY says.
   */
  readonly delivery?: DeliveryMode;
  /**
   * How the job reaches each management cluster (default MANAGEMENT_CLUSTER_MODES: mgmt-1 by IP
   * endpoint and cluster CA, mgmt-2 through Connect Gateway); `dns` serves a publicly trusted
   * certificate as GKE's DNS endpoint does.
   */
  readonly managementClusterModes?: Readonly<Record<string, ManagementClusterMode>>;
  /**
   * The launch queue's rate limits (default LOCAL_LAUNCH_RATE in start-launch-queue.ts): how fast
   * and how many at once the Cloud Tasks emulator calls Cloud Run's jobs.run.
   */
  readonly launchQueue?: { maxDispatchesPerSecond?: number; maxConcurrentDispatches?: number };
  /**
   * The operator's namespace layout (default `clusters-{id}`; `npm start` reads
   * MANAGEMENT_NAMESPACE_TEMPLATE): rendered into the adapter, the job, the fence and placement.
   */
  readonly namespaceLayout?: NamespaceLayout;
  /**
   * The platform default pull secret (default true): the stack creates DEFAULT_PULL_SECRET with a
   * demo version and sets DEFAULT_PULL_SECRET_VERSION (its `latest`) on the adapter and the job, so
   * a cluster without a pull secret in its spec uses it. `false`: no default, as a platform that
   * requires one in every spec (such a cluster is `PreconditionsNotMet`).
   */
  readonly defaultPullSecret?: boolean;
  /** Called as each component becomes ready. */
  readonly onProgress?: (component: string, info: Record<string, unknown>) => void;
}

/** Endpoints and environment of a running local system (also written to stack.json). */
export interface StackDescription {
  readonly project: string;
  /** The namespace layout the stack started with (MANAGEMENT_NAMESPACE_TEMPLATE). */
  readonly namespaceLayout: NamespaceLayout;
  /**
   * The platform default pull secret, `projects/P/secrets/S` (P the project id), whose `latest`
   * the adapter and the job use: a version added there is a rotation. Absent without a default.
   */
  readonly defaultPullSecret?: string;
  readonly pid: number;
  readonly startedAt: string;
  readonly workDir: string;
  readonly logDir: string;
  /** The admin kubeconfig of the default management cluster (mgmt-1), as before there were two. */
  readonly kubeconfig: string;
  /**
   * Every local management cluster by name: its admin kubeconfig and endpoint, how the job reaches
   * it (mode, and its MANAGEMENT_CLUSTERS entry: endpoint and, for an IP endpoint, the CA).
   */
  readonly managementClusters: Record<
    string,
    {
      readonly kubeconfig: string;
      readonly endpoint: string;
      readonly mode: ManagementClusterMode;
      readonly jobAccess: { readonly endpoint: string; readonly caCert?: string };
    }
  >;
  /** The job's user name in the management clusters (a Google service account email on GKE). */
  readonly jobIdentity: string;
  readonly job: string;
  /** The Cloud Tasks queue launches go through. */
  readonly launchQueue: string;
  /** How Pub/Sub messages reach the functions: push subscriptions, or converted to Eventarc's form. */
  readonly delivery: DeliveryMode;
  /** In eventarc mode, the converter in front of the reporter and its log (one JSON line per request). */
  readonly reporterConverter?: { readonly endpoint: string; readonly logFile: string };
  /** PID of every process the stack started, by component. */
  readonly processes: Record<string, number>;
  /**
   * The OTLP/HTTP JSON trace receiver every component exports to (OTEL_EXPORTER_OTLP_ENDPOINT),
   * and where it keeps spans (`npm run trace -- CLUSTER_ID` reads them).
   */
  readonly traces: { readonly endpoint: string; readonly dir: string };
  readonly endpoints: {
    readonly pubsub: string;
    readonly secretManager: string;
    readonly secretManagerAdmin: string;
    readonly kubeApiServer: string;
    readonly hyperfleetApi: string;
    readonly cloudRun: string;
    readonly cloudRunAdmin: string;
    /** The Cloud Run Admin API's REST base (jobs.run), served on the Cloud Run emulator's admin port. */
    readonly cloudRunApi: string;
    /** The Cloud Tasks emulator (gRPC) and its admin API; the launch queue is `launchQueue`. */
    readonly cloudTasks: string;
    readonly cloudTasksAdmin: string;
    /** The Eventarc emulator: the triggers of the delivery mode (none in push mode), and its admin API. */
    readonly eventarc: string;
    /** The metadata server that issues the job's Google access tokens (GCE_METADATA_HOST). */
    readonly metadataServer: string;
    /**
     * host:port of the metadata server listener of the operator (OPERATOR_IDENTITY): the stack's
     * tools, the console and tests call the Google emulators with its tokens (operator-credentials.ts).
     */
    readonly operatorMetadata: string;
    /** host:port of each identity's own metadata server listener, by service account email. */
    readonly identities: Readonly<Record<string, string>>;
    /** The Connect Gateway in front of the clusters reached that way (absent when none is). */
    readonly connectGateway?: string;
    /** The local "public" CA (the gateway's and DNS endpoints' issuer; the job trusts it). */
    readonly publicCaFile: string;
    /** Where Pub/Sub pushes adapter events: the round-robin proxy in front of the instances. */
    readonly adapter: string;
    readonly reporter: string;
  };
  /** The adapter instances (each its own process, port and log file) and the proxy before them. */
  readonly adapters: AdapterInstances['description'];
  readonly topics: Record<string, string>;
  readonly subscriptions: Record<
    string,
    {
      subscription: string;
      topic: string;
      /** Absent in eventarc mode: Eventarc's subscription has no dead-letter policy. */
      deadLetterTopic?: string;
      pushEndpoint: string;
    }
  >;
  /** What a client (gcloud, kubectl, a script) needs to talk to the local system. */
  readonly env: Record<string, string>;
}

/** A restartable component: `adapter` is every adapter instance at once, `adapter-2` only that one. */
export type RestartableComponent = 'adapter' | `adapter-${number}` | 'reporter' | 'pubsub';

export interface Stack {
  readonly description: StackDescription;
  /** Restarts a component the way an operator would (same port); the Pub/Sub emulator is re-wired. */
  restart(component: RestartableComponent): Promise<void>;
  /**
   * What `terraform apply` of another management_namespace does: the fence of every management
   * cluster admits the new layout, the job's definition and the adapters (restarted, as a
   * redeploy) read it, and the simulated placement reports its namespace.
   */
  relayout(layout: NamespaceLayout): Promise<void>;
  stop(): Promise<void>;
}
