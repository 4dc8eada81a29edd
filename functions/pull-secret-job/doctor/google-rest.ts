import * as z from 'zod';

/** What a Google REST API answered: the body, a Google API error, or nothing at all. */
export type RestAnswer<T> =
  | { readonly kind: 'ok'; readonly body: T }
  | {
      readonly kind: 'error';
      readonly httpStatus: number;
      /** Google's status name: NOT_FOUND, PERMISSION_DENIED, UNAUTHENTICATED... */
      readonly status?: string;
      readonly message: string;
      /** ErrorInfo's reason, e.g. SERVICE_DISABLED (the API is off in the caller's project). */
      readonly reason?: string;
    }
  | { readonly kind: 'no-answer'; readonly detail: string };

/**
 * Google's JSON error body, {"error": {"code", "message", "status", "details"}}
 * (https://cloud.google.com/apis/design/errors#http_mapping).
 */
const googleErrorSchema = z.object({
  error: z.object({
    code: z.number().optional(),
    message: z.string().default(''),
    status: z.string().optional(),
    details: z.array(z.object({ reason: z.string().optional() }).loose()).optional(),
  }),
});

/** Where a Google REST API is: its endpoint, or `http://HOST:PORT` of its emulator. */
export function restBase(googleHost: string, emulatorHost: string | undefined): string {
  return emulatorHost ? `http://${emulatorHost}` : `https://${googleHost}`;
}

/**
 * One call to a Google REST API with the job's access token, its answer parsed with `schema` (a
 * body that does not fit is an error, named, never echoed). The token goes in the Authorization
 * header only and appears in no answer this returns.
 */
export async function callGoogleRest<S extends z.ZodType>(
  request: {
    readonly url: string;
    readonly method: 'GET' | 'POST';
    readonly token: string;
    readonly body?: unknown;
    readonly timeoutMs: number;
  },
  schema: S,
): Promise<RestAnswer<z.output<S>>> {
  let answer: Response;
  try {
    answer = await fetch(request.url, {
      method: request.method,
      headers: {
        authorization: `Bearer ${request.token}`,
        ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
      signal: AbortSignal.timeout(request.timeoutMs),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      kind: 'no-answer',
      detail: `${request.method} ${request.url}: ${cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error))}`,
    };
  }
  const json: unknown = await answer.json().catch(() => undefined);
  if (answer.ok) {
    const parsed = schema.safeParse(json ?? {});
    return parsed.success
      ? { kind: 'ok', body: parsed.data }
      : {
          kind: 'error',
          httpStatus: answer.status,
          message: `${request.method} ${request.url} answered ${answer.status} with a body that is not the API's (${parsed.error.issues[0]?.message ?? 'invalid'})`,
        };
  }
  const problem = googleErrorSchema.safeParse(json);
  return {
    kind: 'error',
    httpStatus: answer.status,
    ...(problem.success && problem.data.error.status ? { status: problem.data.error.status } : {}),
    message: problem.success
      ? problem.data.error.message
      : `HTTP ${answer.status} without a Google API error body`,
    ...(problem.success && problem.data.error.details?.find((d) => d.reason)?.reason
      ? { reason: problem.data.error.details.find((d) => d.reason)!.reason! }
      : {}),
  };
}
