import {
  operatorAccess,
  operatorClientOptions,
} from '../../emulators/pullsecret/stack/operator-credentials';
import path from 'node:path';
import { v2 } from '@google-cloud/run';
import { googleClientOptions } from '../../shared/gcp/client-options';
import { ROOT } from './run-process';

export const TEST_JOB = 'projects/demo-project/locations/us-central1/jobs/pullsecret-job';
export const SCRIPTED_TASK = path.join(ROOT, 'test/fixtures/jobs/scripted-task.js');

/** The test job whose executions hang until killed: the adapter's tests need them running. */
export function hangingTestJob(): {
  name: string;
  command: string[];
  env: Record<string, string>;
  maxRetries: number;
  timeoutSeconds: number;
} {
  return {
    name: TEST_JOB,
    command: [process.execPath, SCRIPTED_TASK],
    env: { TASK_BEHAVIOUR: 'hang' },
    maxRetries: 0,
    timeoutSeconds: 30,
  };
}

/** The real Cloud Run clients of the local stack, as its operator (the stack enforces IAM). */
export function stackCloudRunClients(d: OperatorStack): {
  jobs: v2.JobsClient;
  executions: v2.ExecutionsClient;
  tasks: v2.TasksClient;
} {
  const options = operatorClientOptions(operatorAccess(d, d.endpoints.cloudRun));
  return {
    jobs: new v2.JobsClient(options),
    executions: new v2.ExecutionsClient(options),
    tasks: new v2.TasksClient(options),
  };
}

/** What an operator's client needs of the stack's description. */
type OperatorStack = {
  readonly endpoints: {
    readonly cloudRun: string;
    readonly publicCaFile: string;
    readonly operatorMetadata: string;
  };
};

/** The real Cloud Run clients pointed at a standalone emulator's endpoint (no credentials). */
export function cloudRunClients(endpoint: string): {
  jobs: v2.JobsClient;
  executions: v2.ExecutionsClient;
  tasks: v2.TasksClient;
} {
  process.env.METADATA_SERVER_DETECTION = 'none';
  const options = googleClientOptions(endpoint, 'demo-project');
  return {
    jobs: new v2.JobsClient(options),
    executions: new v2.ExecutionsClient(options),
    tasks: new v2.TasksClient(options),
  };
}
