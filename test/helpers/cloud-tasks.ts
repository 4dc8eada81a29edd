import {
  operatorAccess,
  operatorClientOptions,
} from '../../emulators/pullsecret/stack/operator-credentials';
import { CloudTasksClient } from '@google-cloud/tasks';
import { googleClientOptions } from '../../shared/gcp/client-options';

export const TEST_LOCATION = 'projects/demo-project/locations/us-central1';
export const LAUNCHER_SA = 'pullsecret-launcher@demo-project.iam.gserviceaccount.com';

/** The real Cloud Tasks client of the local stack, as its operator (the stack enforces IAM). */
export function stackCloudTasksClient(d: {
  readonly endpoints: {
    readonly cloudTasks: string;
    readonly publicCaFile: string;
    readonly operatorMetadata: string;
  };
}): CloudTasksClient {
  return new CloudTasksClient(operatorClientOptions(operatorAccess(d, d.endpoints.cloudTasks)));
}

/** The real Cloud Tasks client pointed at a standalone emulator's endpoint (no credentials). */
export function cloudTasksClient(endpoint: string): CloudTasksClient {
  process.env.METADATA_SERVER_DETECTION = 'none';
  return new CloudTasksClient(googleClientOptions(endpoint, 'demo-project'));
}

/** Calls without the client's own retries: each test sees the emulator's first answer. */
export const NO_RETRY = { retry: null } as const;
