import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import { googleClientOptions } from '../../shared/gcp/client-options';

/** The real Secret Manager client pointed at an emulator endpoint. */
export function secretManagerClient(endpoint: string): SecretManagerServiceClient {
  process.env.METADATA_SERVER_DETECTION = 'none';
  return new SecretManagerServiceClient(googleClientOptions(endpoint, 'demo-project'));
}
