import type { Logger } from '../logging/logger';
import { HyperFleetEndpointError } from './errors';

/** The `decision` field the log-based metric `hyperfleet_api_misconfigured` counts. */
export const API_MISCONFIGURED_DECISION = 'hyperfleet-api-misconfigured';

/**
 * Logs a HyperFleet API endpoint error loudly (severity ERROR, the URL, what to check) and
 * returns true; the caller then throws so the message is redelivered, never skipped. Anything
 * else returns false and is left to the caller's usual handling.
 */
export function logIfApiMisconfigured(error: unknown, log: Logger): boolean {
  if (!(error instanceof HyperFleetEndpointError)) return false;
  log.error(
    `HyperFleet API configuration error, the message will be redelivered: ${error.message}`,
    {
      decision: API_MISCONFIGURED_DECISION,
      reason: error.reason,
      url: error.failure.url ?? error.failure.path,
      status: error.failure.status,
      code: error.failure.code ?? 'none (not a HyperFleet problem body)',
    },
  );
  return true;
}
