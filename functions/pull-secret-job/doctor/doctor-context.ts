import type { Logger } from '../../../shared/logging/logger';
import type { SecretRedactor } from '../../../shared/logging/secret-redactor';
import type { AccessTokenSource } from '../kubernetes/kubernetes-access';
import type { DoctorArgs } from './doctor-args';
import type { DoctorConfig } from './doctor-config';

/** What the doctor runs with: the job's configuration, its identity and where it runs. */
export interface DoctorContext {
  readonly config: DoctorConfig;
  readonly args: DoctorArgs;
  readonly logger: Logger;
  readonly redactor: SecretRedactor;
  /** The job's Google access token (cloud-platform + userinfo.email), as its runs get it. */
  readonly token: AccessTokenSource;
  /** The job's service account email from the metadata server, if it says. */
  readonly serviceAccount?: string;
  /** The region the job runs in, from the metadata server, if it says. */
  readonly region?: string;
}
