/** Names of the local system: the same topics and subscriptions Terraform creates in GCP. */
export const LOCAL_PROJECT = 'demo-hyperfleet';
/** The region of the job, its triggers and the metadata server (a real region: the doctor reads it there). */
export const LOCAL_REGION = 'us-central1';
export const JOB_NAME = `projects/${LOCAL_PROJECT}/locations/${LOCAL_REGION}/jobs/pullsecret-job`;

/** The Cloud Tasks queue launches go through (one named task per launch; Terraform creates it in GCP). */
export const LAUNCH_QUEUE = `projects/${LOCAL_PROJECT}/locations/${LOCAL_REGION}/queues/pullsecret-launches`;
/** The identity whose OAuth token the launch queue's tasks carry to the Cloud Run Admin API. */
export const LAUNCHER_IDENTITY = `pullsecret-launcher@${LOCAL_PROJECT}.iam.gserviceaccount.com`;

export const TOPICS = {
  sentinel: 'hyperfleet-system-clusters',
  results: 'pullsecret-job-results',
  finished: 'pullsecret-execution-finished',
  /** Secret Manager's notifications on the default pull secret, and the fleet command's requests. */
  fleet: 'pullsecret-fleet-requests',
} as const;

export const SUBSCRIPTIONS = {
  adapter: {
    name: 'pullsecret-adapter',
    topic: TOPICS.sentinel,
    deadLetter: 'pullsecret-adapter-dead-letter',
  },
  results: {
    name: 'pullsecret-results',
    topic: TOPICS.results,
    deadLetter: 'pullsecret-results-dead-letter',
  },
  finished: {
    name: 'pullsecret-finished',
    topic: TOPICS.finished,
    deadLetter: 'pullsecret-finished-dead-letter',
  },
  fleet: {
    name: 'pullsecret-fleet',
    topic: TOPICS.fleet,
    deadLetter: 'pullsecret-fleet-dead-letter',
  },
} as const;

/** Pub/Sub push retries and dead-lettering (shorter backoff than GCP so local runs converge fast). */
export const DELIVERY = {
  maxDeliveryAttempts: 5,
  minimumBackoffSeconds: 1,
  maximumBackoffSeconds: 10,
} as const;

/**
 * What Eventarc's own Pub/Sub subscription has, which Terraform cannot change
 * (hashicorp/terraform-provider-google#17701, #17697): a 10 s ack deadline, and no dead-letter
 * policy unless delivery.attach_dead_letter adds one. The local eventarc mode wires its
 * subscriptions the same way, so only the code's own bounds (DELIVERY_BUDGET, EVENT_MAX_FAILURES,
 * EVENT_MAX_AGE) stop a slow or poison event, as in production.
 */
export const EVENTARC_SUBSCRIPTION = { ackDeadlineSeconds: 10 } as const;

export const topicPath = (topic: string) => `projects/${LOCAL_PROJECT}/topics/${topic}`;

/**
 * The customer projects the job may write to (onboarded with modules/pullsecret-tenant-project):
 * the demo's and those of docs/local-stack.md. The Secret Manager emulator's allow policies grant there as that module does.
 */
export const TARGET_PROJECTS = ['demo-customer-project', 'my-project-123'] as const;

/** The adapter function's identity (its own service account, as Cloud Run gives each service). */
export const ADAPTER_IDENTITY = `pullsecret-adapter@${LOCAL_PROJECT}.iam.gserviceaccount.com`;

/**
 * The operator: the stack's own tools, the console and the tests call the Google emulators as
 * this account (a person or pipeline in production), never as a runtime identity.
 */
export const OPERATOR_IDENTITY = `pullsecret-operator@${LOCAL_PROJECT}.iam.gserviceaccount.com`;

/** The identities the tenant module grants on Secret Manager besides the job. */
export const READER_IDENTITY = `pullsecret-reader@${LOCAL_PROJECT}.iam.gserviceaccount.com`;
export const REPORTER_IDENTITY = `pullsecret-reporter@${LOCAL_PROJECT}.iam.gserviceaccount.com`;

/** The prefix of Terraform's resource names (name_prefix): triggers, subscriptions, the job. */
export const NAME_PREFIX = 'pullsecret';

/** The local management clusters (one Kubernetes emulator each); placement spreads clusters over them. */
export const MANAGEMENT_CLUSTERS = ['mgmt-1', 'mgmt-2'] as const;
/**
 * How the job reaches each local management cluster (docs/management-clusters.md): `ip`, a GKE IP
 * endpoint with its cluster CA; `dns`, a GKE DNS endpoint with a publicly trusted certificate (the
 * local public CA, trusted through NODE_EXTRA_CA_CERTS) and no CA in the job's configuration;
 * `connect-gateway`, through the Connect Gateway emulator. The default stack runs two different
 * modes, so every end-to-end run crosses two of the three paths production takes.
 */
export type ManagementClusterMode = 'ip' | 'dns' | 'connect-gateway';
export const MANAGEMENT_CLUSTER_MODES: Readonly<Record<string, ManagementClusterMode>> = {
  'mgmt-1': 'ip',
  'mgmt-2': 'connect-gateway',
};

/** The local platform project's number (Connect Gateway URLs name the fleet host by number). */
export const LOCAL_PROJECT_NUMBER = '100000000001';
/** The Connect Gateway location of the local fleet memberships. */
export const LOCAL_FLEET_LOCATION = 'global';

/** Where the job writes when placement names no management cluster. */
export const DEFAULT_MANAGEMENT_CLUSTER = MANAGEMENT_CLUSTERS[0];

/**
 * The job's identity in the management clusters: on GKE a Google service account email is the
 * Kubernetes user name, and the fence (ValidatingAdmissionPolicy) matches on it.
 */
export const JOB_IDENTITY = `pullsecret-job@${LOCAL_PROJECT}.iam.gserviceaccount.com`;
/** The simulated HyperShift adapter's identity (HostedClusters, and reading the Secrets it checks). */
export const HYPERSHIFT_IDENTITY = `hypershift-adapter@${LOCAL_PROJECT}.iam.gserviceaccount.com`;

/** Each runtime identity of the shared grants (terraform/modules/runtime-grants.json), by its key. */
export const RUNTIME_IDENTITIES = {
  adapter: ADAPTER_IDENTITY,
  launcher: LAUNCHER_IDENTITY,
  job: JOB_IDENTITY,
  reporter: REPORTER_IDENTITY,
  reader: READER_IDENTITY,
} as const;
