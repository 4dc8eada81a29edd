import * as grpc from '@grpc/grpc-js';
import { GrpcError } from '../common/grpc-error';
import { MAX_TASK_COUNT, type JobDefinition } from './job-definitions';

// Cloud Run's rules for RunJob overrides, to read against the documentation:
// - EnvVar (Admin API v2): name "Must not exceed 32768 characters"; value "the maximum length is
//   32768 bytes".
// - "You can set a maximum of 1000 environment variables per container for each Cloud Run job."
// - "The environment variables defined in the container runtime contract are reserved and cannot
//   be set": for jobs CLOUD_RUN_JOB, CLOUD_RUN_EXECUTION, CLOUD_RUN_TASK_INDEX/ATTEMPT/COUNT; PORT
//   and K_* (K_SERVICE, K_REVISION, K_CONFIGURATION) everywhere. Cloud Run answers, e.g.
//   "spec.template.spec.containers[0].env: The following reserved env names were provided: PORT.
//   These values are automatically set by the system."
// - ContainerOverride.name is "The name of the container specified as a DNS_LABEL": it must name a
//   container of the job; empty means the job's only container.
// - What an override can change: a container's args and env, the task count and the timeout
//   (https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run); never the
//   command. The reserved names above are documented for a job's configuration
//   (https://cloud.google.com/run/docs/configuring/jobs/environment-variables, "Reserved names");
//   that RunJob refuses them as overrides is this emulator's assumption, not a documented rule,
//   so the emulator marks its tasks by argv[0] instead (task-runner.ts), which no override reaches.
export const MAX_ENV_VARS_PER_CONTAINER = 1000;
export const MAX_ENV_NAME_CHARS = 32_768;
export const MAX_ENV_VALUE_BYTES = 32_768;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True for names the container runtime contract sets itself. */
export function isReservedEnvName(name: string): boolean {
  return (
    name === 'PORT' ||
    name.startsWith('K_') ||
    name === 'CLOUD_RUN_JOB' ||
    name === 'CLOUD_RUN_EXECUTION' ||
    name.startsWith('CLOUD_RUN_TASK_')
  );
}

/** RunJobRequest.overrides as grpc-js decodes it (snake_case). */
export interface RunJobOverrides {
  readonly container_overrides?: readonly {
    readonly name?: string;
    readonly args?: readonly string[];
    readonly clear_args?: boolean;
    readonly env?: readonly { readonly name?: string; readonly value?: string }[];
  }[];
  readonly task_count?: number;
  readonly timeout?: { readonly seconds?: string };
}

const invalid = (message: string) => new GrpcError(grpc.status.INVALID_ARGUMENT, message);

/**
 * Validates the overrides of a RunJob on `job` as Cloud Run does and returns the execution's
 * environment: the job's env merged with the overrides ("Will be merged with existing env").
 * Throws INVALID_ARGUMENT naming the field.
 */
export function environmentFor(
  job: JobDefinition,
  overrides: RunJobOverrides,
): Record<string, string> {
  const env: Record<string, string> = { ...job.env };
  (overrides.container_overrides ?? []).forEach((container, index) => {
    const field = `overrides.container_overrides[${index}]`;
    if (container.name && container.name !== job.containerName)
      throw invalid(
        `${field}.name: container "${container.name}" does not exist in job ${job.name}; its containers are: ${job.containerName}.`,
      );
    const variables = container.env ?? [];
    const reserved: string[] = [];
    variables.forEach((variable, position) => {
      const name = variable.name ?? '';
      if (name === '') throw invalid(`${field}.env[${position}].name: must not be empty.`);
      if (name.length > MAX_ENV_NAME_CHARS)
        throw invalid(
          `${field}.env[${position}].name: must not exceed ${MAX_ENV_NAME_CHARS} characters.`,
        );
      if (!ENV_NAME.test(name))
        throw invalid(
          `${field}.env[${position}].name: Invalid environment variable name ${JSON.stringify(name.slice(0, 80))}.`,
        );
      if (Buffer.byteLength(variable.value ?? '', 'utf8') > MAX_ENV_VALUE_BYTES)
        throw invalid(
          `${field}.env[${position}].value: ${name} is longer than the maximum of ${MAX_ENV_VALUE_BYTES} bytes.`,
        );
      if (isReservedEnvName(name)) reserved.push(name);
      env[name] = variable.value ?? '';
    });
    if (reserved.length > 0)
      throw invalid(
        `${field}.env: The following reserved env names were provided: ${reserved.join(', ')}. These values are automatically set by the system.`,
      );
  });
  if (Object.keys(env).length > MAX_ENV_VARS_PER_CONTAINER)
    throw invalid(
      `overrides.container_overrides: container ${job.containerName} would have ${Object.keys(env).length} environment variables; the maximum is ${MAX_ENV_VARS_PER_CONTAINER} per container.`,
    );
  return env;
}

/**
 * The execution's task count: `overrides.task_count` "Will replace existing task_count value"
 * (google/cloud/run/v2/job.proto, RunJobRequest.Overrides), else the job's. proto3 cannot tell an
 * unset int32 from 0, so 0 keeps the job's. A job runs "up to 10,000 tasks"
 * (https://cloud.google.com/run/docs/create-jobs): a count below 0 or above it is refused with
 * INVALID_ARGUMENT. (Cloud Run's own wording for that refusal is not published; this one names
 * the field, the value and the range.)
 */
export function taskCountFor(job: JobDefinition, overrides: RunJobOverrides): number {
  const count = overrides.task_count ?? 0;
  if (!Number.isInteger(count) || count < 0 || count > MAX_TASK_COUNT)
    throw invalid(
      `overrides.task_count: must be an integer from 1 to ${MAX_TASK_COUNT} (the most tasks a Cloud Run job execution runs), got ${count}.`,
    );
  return count === 0 ? job.taskCount : count;
}

/**
 * How many of the execution's tasks run at once: the job's `parallelism` (RunJob cannot override
 * it), where 0 means "the maximum possible value" (execution_template.proto), and never more than
 * the task count (Execution.parallelism "Must be <= task_count", execution.proto). This is what
 * the execution reports; the emulator's own ceiling on concurrent processes (task-runner.ts)
 * does not show in it.
 */
export function parallelismFor(job: JobDefinition, taskCount: number): number {
  return job.parallelism === 0 ? taskCount : Math.min(job.parallelism, taskCount);
}

/**
 * The execution's container args: a container override's `args` "Will replace existing args for
 * override", `clear_args` is "True if the intention is to clear out existing args list"
 * (https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run,
 * ContainerOverride); otherwise the job's own args. The entrypoint (`command`) never changes.
 */
export function argumentsFor(job: JobDefinition, overrides: RunJobOverrides): readonly string[] {
  let args: readonly string[] = job.args;
  for (const container of overrides.container_overrides ?? []) {
    if (container.args && container.args.length > 0) args = container.args;
    else if (container.clear_args) args = [];
  }
  return args;
}
