/**
 * argv[0] of every task process the local Cloud Run emulator starts (emulators/cloud-run): how the
 * job tells the emulator from Cloud Run. On Cloud Run a task runs the image's ENTRYPOINT, and a
 * RunJob override can change only a container's args and env, the task count and the timeout
 * (https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run), never the
 * command: no execution on Cloud Run starts with this argv[0], whatever its overrides say. (An
 * environment variable would not do: the documentation reserves the runtime contract's names
 * "in a job's configuration" but does not say that RunJob refuses them as overrides.)
 */
export const CLOUD_RUN_EMULATOR_ARGV0 = 'cloud-run-emulator-task';
