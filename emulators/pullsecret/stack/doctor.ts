#!/usr/bin/env node
// `npm run doctor [-- DOCTOR FLAGS] [--stack FILE]`: checks the running local stack end to end with
// `pull-secret doctor`, run as an execution of the stack's job (doctor-execution.ts), exactly as in
// GCP: `gcloud run jobs execute JOB --args=doctor,FLAGS --wait`. Prints the doctor's output and
// exits 0 when no check failed, 1 when one did, 3 when no stack runs.
import fs from 'node:fs';
import path from 'node:path';
import { runDoctorExecution } from './doctor-execution';
import type { StackDescription } from './stack-description';

const ROOT = path.resolve(__dirname, '../../../..');

async function main(argv: readonly string[]): Promise<number> {
  // This process's own Cloud Run client must not probe for a metadata server (the doctor's
  // execution gets the job's identity from the stack's).
  process.env.METADATA_SERVER_DETECTION = 'none';
  const at = argv.indexOf('--stack');
  const stackFile = at >= 0 ? argv[at + 1] : path.join(ROOT, '.local', 'stack.json');
  const doctorArgs = at >= 0 ? [...argv.slice(0, at), ...argv.slice(at + 2)] : [...argv];
  let stack: StackDescription;
  try {
    stack = JSON.parse(fs.readFileSync(stackFile ?? '', 'utf8')) as StackDescription;
  } catch {
    process.stderr.write(
      `doctor: no running local stack (${stackFile ?? '--stack needs a file'} is missing); start one with npm start.\n`,
    );
    return 3;
  }
  const run = await runDoctorExecution(stack, doctorArgs);
  process.stdout.write(run.output);
  process.stderr.write(
    `doctor: execution ${run.execution.split('/').pop()} ${run.succeeded ? 'succeeded' : 'failed'} (its log: ${path.relative(process.cwd(), path.join(stack.logDir, 'jobs'))})\n`,
  );
  return run.succeeded ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`doctor: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
