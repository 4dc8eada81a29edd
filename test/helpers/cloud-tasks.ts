import { CloudTasksClient } from '@google-cloud/tasks';
import { googleClientOptions } from '../../shared/gcp/client-options';

export const TEST_LOCATION = 'projects/demo-project/locations/us-central1';
export const LAUNCHER_SA = 'pullsecret-launcher@demo-project.iam.gserviceaccount.com';

/** The real Cloud Tasks client pointed at an emulator endpoint, as the adapter will build it. */
export function cloudTasksClient(endpoint: string): CloudTasksClient {
  process.env.METADATA_SERVER_DETECTION = 'none';
  return new CloudTasksClient(googleClientOptions(endpoint, 'demo-project'));
}

/** Calls without the client's own retries: each test sees the emulator's first answer. */
export const NO_RETRY = { retry: null } as const;
