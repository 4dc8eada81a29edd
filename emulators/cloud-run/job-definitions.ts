import * as z from 'zod';

/**
 * "You can structure a job as a single task or as multiple, independent tasks (up to 10,000
 * tasks)" (https://cloud.google.com/run/docs/create-jobs).
 */
export const MAX_TASK_COUNT = 10_000;

/** A job the emulator can run: locally, a command with base env. */
export const jobDefinitionSchema = z.object({
  /** Full resource name: projects/P/locations/L/jobs/J. */
  name: z
    .string()
    .regex(
      /^projects\/[^/]+\/locations\/[^/]+\/jobs\/[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/,
      'must be projects/P/locations/L/jobs/J',
    ),
  /** The image's ENTRYPOINT (and any CMD it keeps): what no RunJob override can change. */
  command: z.array(z.string()).min(1),
  /**
   * The container's args (Terraform's `args`, the Dockerfile's CMD): appended to `command`, and
   * what a RunJob container override's `args` replaces.
   */
  args: z.array(z.string()).default([]),
  /** The job's (only) container, as RunJob's container overrides must name it (a DNS label). */
  containerName: z
    .string()
    .regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a DNS label')
    .default('job'),
  /** The container image executions report (nothing is pulled: `command` runs on this machine). */
  image: z.string().default('local/job'),
  env: z.record(z.string(), z.string()).default({}),
  /** Task timeout, as Cloud Run's template.timeout. */
  timeoutSeconds: z.number().int().min(1).default(600),
  /**
   * Tasks per execution (Terraform's `task_count`, the job's template.task_count: "Defaults to 1"),
   * what a RunJob's `overrides.task_count` replaces for one execution.
   */
  taskCount: z.number().int().min(1).max(MAX_TASK_COUNT).default(1),
  /**
   * The most tasks of one execution that run at once (Terraform's `parallelism`). 0 is Cloud Run's
   * default: "if this field is 0 or unset, the maximum possible value will be used for that
   * execution" (google/cloud/run/v2/execution_template.proto); locally that maximum is the
   * emulator's `maxParallelTasks`.
   */
  parallelism: z.number().int().min(0).max(MAX_TASK_COUNT).default(0),
  /** Task retries, as Cloud Run's template.max_retries ("Number of retries allowed per Task"). */
  maxRetries: z.number().int().min(0).max(10).default(3),
  /** Killed like Cloud Run does when the task's memory exceeds this. */
  memoryLimitMiB: z.number().int().min(16).optional(),
  /** Where each task's output is written (one file per execution); discarded when absent. */
  logDir: z.string().optional(),
});
export type JobDefinition = z.output<typeof jobDefinitionSchema>;
export type JobDefinitionInput = z.input<typeof jobDefinitionSchema>;

export const jobDefinitionsSchema = z.array(jobDefinitionSchema);

/** Splits projects/P/locations/L/jobs/J. */
export function parseJobName(name: string): { project: string; location: string; job: string } {
  const [, project = '', , location = '', , job = ''] = name.split('/');
  return { project, location, job };
}
