import type { Logger } from '../logging/logger';

/** How startTracing describes the process; its own module so the lazily loaded SDK half needs nothing from start.ts. */
export interface StartTracingOptions {
  /** The Google Cloud project: resource attribute `gcp.project_id` (where the Telemetry API files spans). */
  readonly projectId?: string;
  readonly logger?: Logger;
}
