import type { JobResult } from '../../../shared/job-result';

/** Tells the reporter how a run ended (the results topic in GCP and locally). */
export interface ResultPublisher {
  /** Publishes, retrying; resolves false (never throws) when it finally could not. */
  publish(result: JobResult): Promise<boolean>;
  close(): Promise<void>;
}
