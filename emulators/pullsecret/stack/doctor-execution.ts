import fs from 'node:fs';
import path from 'node:path';
import { v2 } from '../../../shared/gcp/lazy/cloud-run';
import { operatorAccess, operatorClientOptions } from './operator-credentials';
import type { StackDescription } from './stack-description';

/** What the local stack's doctor execution left: how it ended and what it printed. */
export interface DoctorExecution {
  readonly execution: string;
  readonly succeeded: boolean;
  /** The execution's log: the doctor's table, its fixes and its result line. */
  readonly output: string;
}

/**
 * Runs `pull-secret doctor ARGS` as one execution of the stack's job, the way an operator runs it
 * in GCP (`gcloud run jobs execute JOB --args=doctor,ARGS --wait`): a RunJob whose container
 * override replaces the job's args, so the doctor has the job's environment, its identity (the
 * metadata server's tokens) and the Cloud Run emulator's task mark. Resolves once the execution
 * ended, with the log it wrote.
 */
export async function runDoctorExecution(
  d: Pick<StackDescription, 'job' | 'endpoints' | 'logDir'>,
  args: readonly string[],
  options: {
    readonly timeoutMs?: number;
    /** Env overrides of the execution (as `--update-env-vars` would set them). */
    readonly env?: Readonly<Record<string, string>>;
  } = {},
): Promise<DoctorExecution> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  // As the operator: the stack's Cloud Run refuses calls without credentials.
  const clientOptions = operatorClientOptions(operatorAccess(d, d.endpoints.cloudRun));
  const jobs = new v2.JobsClient(clientOptions);
  const executions = new v2.ExecutionsClient(clientOptions);
  try {
    const [operation] = await jobs.runJob({
      name: d.job,
      overrides: {
        containerOverrides: [
          {
            args: ['doctor', ...args],
            env: Object.entries(options.env ?? {}).map(([name, value]) => ({ name, value })),
          },
        ],
      },
    });
    const name = (operation.metadata as { name?: string } | null | undefined)?.name;
    if (!name) throw new Error(`RunJob on ${d.job} returned no execution`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [execution] = await executions.getExecution({ name });
      if (execution.completionTime) {
        const log = path.join(d.logDir, 'jobs', `${name.split('/').pop()}.log`);
        return {
          execution: name,
          succeeded: Number(execution.succeededCount ?? 0) > 0,
          output: fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '',
        };
      }
      if (Date.now() > deadline)
        throw new Error(`the doctor execution ${name} did not finish within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await jobs.close();
    await executions.close();
  }
}
