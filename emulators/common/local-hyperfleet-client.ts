import { NoAuth } from '../../shared/hyperfleet/auth';
import { HyperFleetClient } from '../../shared/hyperfleet/client';
import type { Logger } from '../../shared/logging/logger';

/** The real HyperFleet client for a local emulator: no authentication, API v1. */
export function localHyperFleetClient(
  baseUrl: string,
  logger: Logger,
  options: { retryAttempts?: number; timeoutMs?: number } = {},
): HyperFleetClient {
  return new HyperFleetClient(
    {
      baseUrl,
      version: 'v1',
      timeoutMs: options.timeoutMs ?? 5000,
      retryAttempts: options.retryAttempts ?? 2,
      auth: { kind: 'none' },
    },
    { auth: new NoAuth(), logger },
  );
}
