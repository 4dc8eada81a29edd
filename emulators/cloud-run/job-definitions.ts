import * as z from 'zod';

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
  /** Task retries, as Cloud Run's template.max_retries. */
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
