import type { JobResult, JobStarted } from '../../../shared/job-result';

/** Tells the reporter that a run started and how it ended (the results topic in GCP and locally). */
export interface ResultPublisher {
  /** Publishes the start report, retrying briefly; resolves false (never throws) when it could not. */
  publishStarted(started: JobStarted): Promise<boolean>;
  /** Publishes, retrying; resolves false (never throws) when it finally could not. */
  publish(result: JobResult): Promise<boolean>;
  close(): Promise<void>;
}
