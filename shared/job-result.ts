import * as z from 'zod';

/**
 * The job's account of one run: printed as its last output line and published to the results
 * topic, where the reporter reads it. Safe to show: no secret material, only a hash prefix.
 */
export const jobResultSchema = z.object({
  /**
   * `stood-aside`: another execution holds the claim for the same work (reason DuplicateExecution)
   * or newer work (SupersededExecution, also when the cluster is being deleted or is at a newer
   * generation), so this one stopped, leaving nothing of its own; it exits 0 and the reporter
   * writes no status for it. Read as `duplicate` from executions of releases before issue 38,
   * whose results may still be in flight during an upgrade.
   */
  outcome: z.preprocess(
    (outcome) => (outcome === 'duplicate' ? 'stood-aside' : outcome),
    z.enum(['succeeded', 'failed', 'stood-aside']),
  ),
  operation: z.enum(['apply', 'delete']),
  dry_run: z.boolean(),
  cluster_id: z.string(),
  generation: z.number().int().positive().optional(),
  /** Cloud Run execution name (short, as CLOUD_RUN_EXECUTION gives it). */
  execution: z.string().optional(),
  /** LAUNCH_ATTEMPT: which attempt of the adapter this execution is, for the status. */
  attempt: z.number().int().positive().optional(),
  phases: z.array(z.enum(['secret-manager', 'kubernetes'])),
  /** Success or failure reason code, CamelCase (e.g. PullSecretProvisioned, InvalidPullSecret). */
  reason: z.string().min(1),
  /** Human-readable, safe to show. */
  message: z.string().min(1),
  failure_kind: z.enum(['permanent', 'transient']).optional(),
  pull_secret_sha256_prefix: z.string().optional(),
  /**
   * Where the pull secret came from: the cluster spec, the platform's default (which is not copied
   * to the tenant project unless COPY_PLATFORM_DEFAULT_TO_TENANT=true), or PULL_SECRET_DATA.
   */
  pull_secret_source: z.enum(['cluster-spec', 'platform-default', 'env']).optional(),
  /**
   * With `platform-default`: the number of the default's version the pull secret was read from
   * (decimal; `latest` resolved to the newest enabled version). The Kubernetes Secret carries it as
   * `hyperfleet.io/default-version`, which orders a rotation's writes.
   */
  default_version: z
    .string()
    .regex(/^[1-9][0-9]*$/, 'must be a version number')
    .optional(),
  secret_manager: z
    .object({
      secret_path: z.string(),
      secret: z.enum(['created', 'reused', 'deleted', 'retained', 'absent', 'foreign']),
      /** `none` on apply: the platform default is in use and was not copied (no version holds it). */
      version: z.enum(['added', 'unchanged', 'disabled', 'none']),
      version_name: z.string(),
      verified: z.boolean(),
      destroyed_versions: z.array(z.string()),
    })
    .optional(),
  kubernetes: z
    .object({
      /** The management cluster's name (MANAGEMENT_CLUSTERS, or `default` for the single-cluster variables). */
      management_cluster: z.string().optional(),
      namespace: z.string(),
      name: z.string(),
      outcome: z.enum(['created', 'updated', 'unchanged', 'deleted', 'absent', 'foreign']),
      resource_version: z.string().optional(),
      /**
       * A namespace layout migration's `keep-previous` phase left ours in this namespace (the
       * previous layout's) as well: the `remove-previous` phase must run for this cluster.
       */
      previous_layout_namespace: z.string().optional(),
    })
    .optional(),
  /** Earlier places ours was removed from: a move's old places, or a delete's other places. */
  cleaned_placements: z
    .array(
      z.object({
        management_cluster: z.string(),
        namespace: z.string(),
        name: z.string(),
        outcome: z.enum(['deleted', 'absent', 'foreign']),
      }),
    )
    .optional(),
  /** For an execution that stood aside: the claim that another execution holds. */
  claim_holder: z
    .object({
      execution: z.string(),
      generation: z.number().int().positive(),
      operation: z.enum(['apply', 'delete']),
      attempt: z.number().int().positive(),
    })
    .optional(),
  durations_ms: z.record(z.string(), z.number()),
  started_at: z.string().optional(),
  finished_at: z.string(),
});
export type JobResult = z.infer<typeof jobResultSchema>;

/** Key of the result object in the job's last output line. */
export const RESULT_LINE_KEY = 'pullsecret_job_result';

/** Exit codes of the job (documented in docs/configuration.md, "Exit codes"). */
export const EXIT_CODES = {
  success: 0,
  internal: 1,
  configuration: 2,
  permanent: 3,
  transient: 4,
} as const;

/** Message attribute `type` that marks job results on the results topic. */
export const RESULT_MESSAGE_TYPE = 'pullsecret.job.result';

/**
 * The job's report of its own start, published once before its first write by an execution the
 * adapter launched (the adapter launches through Cloud Tasks and never sees the execution's name):
 * the reporter turns it into the `launched` status. Identifiers and a time only, nothing secret.
 */
export const jobStartedSchema = z.object({
  cluster_id: z.string().min(1),
  generation: z.number().int().positive(),
  operation: z.enum(['apply', 'delete']),
  /** LAUNCH_ATTEMPT. */
  attempt: z.number().int().positive(),
  /** Cloud Run execution name (short, as CLOUD_RUN_EXECUTION gives it). */
  execution: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be a short execution name'),
  /** LAUNCH_ID: the launch task's id, when the adapter passed one. */
  launch_id: z.string().min(1).max(200).optional(),
  started_at: z.iso.datetime({ offset: true }),
});
export type JobStarted = z.infer<typeof jobStartedSchema>;

/** Message attribute `type` that marks the job's start reports on the results topic. */
export const STARTED_MESSAGE_TYPE = 'pullsecret.job.started';
