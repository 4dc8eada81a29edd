import type { Logger } from '../logging/logger';
import { lazily } from '../lazily';

// The Telemetry API's method v1.traces.post requires one of these OAuth scopes; the narrower one
// is asked for (on Cloud Run the metadata server's token carries cloud-platform anyway).
const TRACE_APPEND_SCOPE = 'https://www.googleapis.com/auth/trace.append';

/** Whether spans go to Google's Telemetry API (and so need a Google access token). */
export function isGoogleTelemetryEndpoint(tracesEndpoint: string): boolean {
  return new URL(tracesEndpoint).hostname === 'telemetry.googleapis.com';
}

/**
 * An OTLP exporter headers factory that adds a Google access token (Application Default
 * Credentials) to each export. Called per request, so a token never outlives its hour: Google's
 * docs steer in-process HTTP exporters away because most only take static headers; this factory
 * is the answer. `extra` are OTEL_EXPORTER_OTLP_HEADERS (the token wins). It never throws (the exporter's contract): without a token the export is sent
 * unauthenticated, fails 401, and that failure is the one warning logged. The token is never logged.
 */
export function googleAccessTokenHeaders(
  logger: Logger | undefined,
  extra: Readonly<Record<string, string>> = {},
): () => Promise<Record<string, string>> {
  const client = lazily(async () => {
    const { GoogleAuth } = await import('../gcp/lazy/google-auth.js');
    return new GoogleAuth({ scopes: [TRACE_APPEND_SCOPE] });
  });
  let warned = false;
  return async () => {
    try {
      const headers = await (await client()).getRequestHeaders();
      warned = false;
      const record: Record<string, string> = { ...extra };
      headers.forEach((value, name) => (record[name] = value));
      return record;
    } catch (error) {
      if (!warned)
        logger?.warn('No Google credentials for exporting trace spans; spans are dropped', {
          error_type: error instanceof Error ? error.constructor.name : typeof error,
        });
      warned = true;
      return { ...extra };
    }
  };
}
