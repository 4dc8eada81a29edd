import type { ExecutionReader } from '../../../shared/executions/execution-reader';
import type { HyperFleetApi } from '../../../shared/hyperfleet/port';
import type { Logger } from '../../../shared/logging/logger';
import type { ClaimReader } from '../claim/claim-reader';

/** What the reporter's handler needs; the entry file builds it once per instance. */
export interface ReporterDependencies {
  readonly hyperfleet: HyperFleetApi;
  readonly executions: ExecutionReader;
  /** Tells duplicates from claim holders on execution-finished events; absent: no check. */
  readonly claims?: ClaimReader;
  /** projects/P/locations/L/jobs/J: only this job's executions are reported. */
  readonly jobName: string;
  readonly logger: Logger;
  readonly now?: () => Date;
}
