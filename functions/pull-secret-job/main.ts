#!/usr/bin/env node
// Entry point of the Cloud Run Job and of the `pull-secret` CLI (compatible with the original Go
// job: `pull-secret run-job pull-secret [--dry-run]`, `pull-secret version`). The CLI only: the
// wiring of a run is run/job-wiring.ts.
import { EXIT_CODES } from '../../shared/job-result';
import { installCrashHandlers } from '../../shared/logging/crash-handlers';
import { redactStream } from '../../shared/logging/redacting-output';
import { SecretRedactor } from '../../shared/logging/secret-redactor';
import { projectVersion } from './config/version';
import { googleAccessToken } from './kubernetes/google-access-token';
import { runJobCommand } from './run/job-wiring';

const USAGE = `Usage:
  pull-secret run-job pull-secret [--dry-run]   store the pull secret (configuration from the environment)
  pull-secret doctor [--all-projects | --project P]... [--help]
                                                check the deployment end to end, as the job
  pull-secret version                           print the version
  pull-secret --help                            print this help
See docs/configuration.md, "Pull secret job", for the environment variables and exit codes, and docs/operations.md, "pull-secret doctor", for the doctor.`;

/** Every secret the run learns; stdout, stderr, the log and the published result all pass through it. */
const redactor = new SecretRedactor();
redactStream(process.stdout, redactor);
redactStream(process.stderr, redactor);
// Node's crash printer writes to stderr past redactStream: a crash prints one redacted line instead.
installCrashHandlers({ component: 'pullsecret-job', redactor, exitCode: EXIT_CODES.internal });

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, jobName, ...flags] = argv;
  // Asking for help is not a configuration error: exit 0 with the usage on stdout.
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'version' || command === '--version') {
    process.stdout.write(`pull-secret ${projectVersion()}\n`);
    return 0;
  }
  if (command === 'doctor') {
    // Its own chunk (a dynamic import): a run of the job never loads the doctor.
    const { doctorMain } = await import('./doctor/doctor-main.js');
    return doctorMain(argv.slice(1), env, {
      argv0: process.argv0,
      redactor,
      token: googleAccessToken,
    });
  }
  const unknownFlags = flags.filter((flag) => flag !== '--dry-run');
  if (command !== 'run-job' || jobName !== 'pull-secret' || unknownFlags.length > 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const dryRun = flags.includes('--dry-run');
  if (env.BATCH_SELECTOR !== undefined) {
    // A batch execution's task (the adapter launched it with BATCH_SELECTOR): its own chunk, so a
    // per-cluster run never loads it.
    if (dryRun) {
      process.stderr.write(
        'pull-secret: --dry-run is not supported for a batch (BATCH_SELECTOR).\n',
      );
      return 2;
    }
    const { runBatchTask } = await import('./batch/run-batch.js');
    return runBatchTask(env, redactor);
  }
  if (env.PULL_SECRET_DATA) redactor.registerPullSecret(env.PULL_SECRET_DATA);
  return runJobCommand(env, dryRun, redactor);
}

main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `pull-secret: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
