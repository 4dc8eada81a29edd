import { randomBytes } from 'node:crypto';

/** A field-level validation error inside a problem (RFC 9457 extension used by HyperFleet). */
export interface FieldError {
  field: string;
  /** The refused value, as the API's list-parameter errors carry it. */
  value?: unknown;
  constraint?:
    | 'required'
    | 'min'
    | 'max'
    | 'min_length'
    | 'max_length'
    | 'pattern'
    | 'enum'
    | 'format'
    | 'unique';
  message: string;
}

/** The API's problem type, title and code per status (pkg/errors of hyperfleet-api). */
const KINDS = {
  400: { type: 'validation-error', title: 'Validation Failed', code: 'HYPERFLEET-VAL-000' },
  401: {
    type: 'authentication-error',
    title: 'Authentication Required',
    code: 'HYPERFLEET-AUT-001',
  },
  403: { type: 'authorization-error', title: 'Unauthorized', code: 'HYPERFLEET-AUZ-001' },
  404: { type: 'not-found', title: 'Resource Not Found', code: 'HYPERFLEET-NTF-001' },
  405: { type: 'method-not-allowed', title: 'Method Not Allowed', code: 'HYPERFLEET-MTH-001' },
  409: { type: 'conflict', title: 'Resource Conflict', code: 'HYPERFLEET-CNF-001' },
  500: { type: 'internal-error', title: 'Internal Server Error', code: 'HYPERFLEET-INT-001' },
  503: { type: 'service-unavailable', title: 'Service Unavailable', code: 'HYPERFLEET-SVC-001' },
} as const;

/** Overrides of the status's usual kind, e.g. the router's `endpoint-not-found` (NTF-000). */
export interface ProblemKind {
  readonly type: string;
  readonly title: string;
  readonly code: string;
}

/** An RFC 9457 problem the emulator answers with (application/problem+json). */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly kind?: ProblemKind,
  ) {
    super(detail);
  }

  /**
   * The problem document. `traceId` is the request's trace (its `traceparent`), as the API's
   * error bodies carry it so a caller's logs and the API's meet; without one, a random id.
   */
  body(instance: string, traceId?: string): Record<string, unknown> {
    const kind = this.kind ??
      KINDS[this.status as keyof typeof KINDS] ?? {
        type: 'error',
        title: 'Error',
        code: `HYPERFLEET-INT-${this.status}`,
      };
    return {
      type: `https://api.hyperfleet.io/errors/${kind.type}`,
      title: kind.title,
      status: this.status,
      detail: this.detail,
      instance,
      code: kind.code,
      timestamp: new Date().toISOString(),
      trace_id: traceId ?? randomBytes(8).toString('hex'),
      ...(this.errors && this.errors.length > 0 ? { errors: this.errors } : {}),
    };
  }
}

export const invalid = (detail: string, errors?: FieldError[]) => new Problem(400, detail, errors);
export const notFound = (what: string, id: string) =>
  new Problem(404, `${what} with id='${id}' not found`);
export const conflict = (detail: string) => new Problem(409, detail);

/**
 * A body that is empty or not JSON the API can decode (`HYPERFLEET-VAL-006`, hyperfleet-api
 * pkg/handlers/helpers.go decodeAndValidate -> errors.MalformedRequest).
 */
export const malformed = (detail: string) =>
  new Problem(400, detail, undefined, {
    type: 'malformed-request',
    title: 'Malformed Request',
    code: 'HYPERFLEET-VAL-006',
  });

/** The router's answer for a path no route matches (wrong base path or version), before auth. */
export const endpointNotFound = (path: string) =>
  new Problem(404, `The requested endpoint '${path}' does not exist`, undefined, {
    type: 'endpoint-not-found',
    title: 'Endpoint Not Found',
    code: 'HYPERFLEET-NTF-000',
  });
