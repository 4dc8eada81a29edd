import type { ApiFailureDetail } from './errors';
import { isTransientStatus } from './errors';
import type { TransportResponse } from './http-transport';
import { problemSchema } from './schemas';

/**
 * The RFC 9457 problem of an error answer, when it is one. A body that is not a problem (a proxy's
 * HTML page, an empty 404) yields no code, which is how a 404 from elsewhere is told apart.
 */
export async function problemOf(
  response: TransportResponse,
): Promise<{ code?: string; detail?: string; traceId?: string }> {
  try {
    const problem = problemSchema.safeParse(await response.json());
    if (!problem.success) return {};
    return {
      ...(problem.data.code ? { code: problem.data.code } : {}),
      ...(problem.data.detail ? { detail: problem.data.detail } : {}),
      ...(problem.data.trace_id ? { traceId: problem.data.trace_id } : {}),
    };
  } catch {
    return isTransientStatus(response.status) ? {} : { detail: response.statusText };
  }
}

/** The failure detail a typed API error carries, if the error is one. */
export function failureOf(error: unknown): ApiFailureDetail | undefined {
  return (error as { failure?: ApiFailureDetail }).failure;
}

/** The API's correlation id of a failed attempt, as a log field. */
export function hyperFleetTraceId(error: unknown): { hyperfleet_trace_id?: string } {
  const traceId = failureOf(error)?.traceId;
  return traceId ? { hyperfleet_trace_id: traceId } : {};
}
