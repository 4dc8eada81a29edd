// What the API checks in a PUT /statuses body BEFORE it looks the cluster up, in its order, so a bad
// body on a missing cluster is a 400, not a 404 (hyperfleet-api pkg/handlers/resource_status_handler.go
// ResourceStatusHandler.Create: decodeAndValidate, then verifyResource). The rules that need the
// stored rows (discards, mandatory conditions, the conditional upsert) are in status-rules.ts.
import * as z from 'zod';
import { invalid, malformed, type Problem } from './problem';

const PAST_WINDOW_MS = 30 * 60_000;
const FUTURE_WINDOW_MS = 5 * 60_000;
const INT32_MAX = 2 ** 31 - 1;

const int32 = z
  .number()
  .int()
  .min(-INT32_MAX - 1)
  .max(INT32_MAX);
const time = z.iso.datetime({ offset: true });
// Go decodes into a typed struct: a missing or null field is its zero value, unknown fields are
// dropped, a value of the wrong JSON type fails the whole decode.
const conditionSchema = z.object({
  type: z.string().nullish(),
  status: z.string().nullish(),
  reason: z.string().nullish(),
  message: z.string().nullish(),
});
// Only the metadata fields of the spec's AdapterStatusCreateRequest survive (typed Go struct).
const metadataSchema = z.object({
  job_name: z.string().nullish(),
  job_namespace: z.string().nullish(),
  attempt: int32.nullish(),
  started_time: time.nullish(),
  completed_time: time.nullish(),
  duration: z.string().nullish(),
});
const decodeSchema = z.object({
  adapter: z.string().nullish(),
  observed_generation: int32.nullish(),
  observed_time: time.nullish(),
  conditions: z.array(conditionSchema.nullable()).nullish(),
  data: z.record(z.string(), z.unknown()).nullish(),
  metadata: metadataSchema.nullish(),
});

/** A condition as reported: `reason` and `message` optional. */
export interface ReportedCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

/** A PUT /statuses body that passed the handler's checks. */
export interface StatusRequest {
  adapter: string;
  observed_generation: number;
  /** The report's time, ISO 8601 in UTC: the API stores it as `last_report_time`. */
  observed_time: string;
  conditions: ReportedCondition[];
  /** `{}` when none was sent: the API stores and returns an empty object (ConvertAdapterStatus). */
  data: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

const STATUSES = new Set(['True', 'False', 'Unknown']);
const TIME_FIELDS = new Set(['observed_time', 'metadata.started_time', 'metadata.completed_time']);

/** Go's words for the JSON kind a field should have had (helpers.go describeJSONKind). */
function kindOf(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_type') return 'a number';
  const expected = String(issue.expected);
  if (expected === 'object' || expected === 'record') return 'an object';
  if (expected === 'array') return 'an array';
  if (expected === 'string') return 'a string';
  return 'a number';
}

/** The decode step: an empty or undecodable body is VAL-006, a wrong JSON type VAL-000. */
function decode(body: unknown): z.infer<typeof decodeSchema> {
  if (body === undefined) return fail(malformed('Request body is required but was empty'));
  const parsed = decodeSchema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.filter((p) => typeof p === 'string').join('.');
  // A time Go cannot parse (a bad string or not a string) is not a json.UnmarshalTypeError:
  // decodeAndValidate answers "Invalid request format".
  if (issue.code === 'invalid_format' || TIME_FIELDS.has(field))
    return fail(malformed(`Invalid request format: ${field}: ${issue.message}`));
  return fail(invalid(`field '${field}' must be ${kindOf(issue)}`));
}

const present = <T>(value: T | null | undefined): value is T =>
  value !== null && value !== undefined;

function fail(problem: Problem): never {
  throw problem;
}

/** The handler's validate funcs, in order; the first failure is the answer (a single detail). */
function firstViolation(request: z.infer<typeof decodeSchema>, now: Date): string | undefined {
  if (!request.adapter) return 'adapter is required';
  if ((request.observed_generation ?? 0) < 1) return 'observed_generation must be >= 1';
  const seen = new Set<string>();
  for (const [index, condition] of (request.conditions ?? []).entries()) {
    const type = condition?.type ?? '';
    const status = condition?.status ?? '';
    if (type === '') return `condition type cannot be empty at index ${index}`;
    if (seen.has(type)) return `duplicate condition type '${type}' at index ${index}`;
    seen.add(type);
    if (!STATUSES.has(status))
      return `invalid status value '${status}' for condition at index ${index} (type: ${type}): must be 'True', 'False', or 'Unknown'`;
  }
  if (request.observed_time) {
    const observed = Date.parse(request.observed_time);
    if (observed > now.getTime() + FUTURE_WINDOW_MS)
      return 'observed_time must not be more than 5m0s in the future';
    if (observed < now.getTime() - PAST_WINDOW_MS)
      return 'observed_time must not be more than 30m0s in the past';
  }
  return undefined;
}

/**
 * Stricter than the API, on purpose: the spec requires `observed_time` (the API would stamp its
 * own clock) and `last_transition_time` is API-managed (the API would drop it). Checked after the
 * API's own rules so that, when both apply, the API's answer wins.
 */
function contractViolation(body: unknown): string | undefined {
  const raw = body as { observed_time?: unknown; conditions?: unknown };
  if (raw.observed_time === undefined || raw.observed_time === null)
    return 'observed_time is required (RFC 3339)';
  const conditions = Array.isArray(raw.conditions) ? (raw.conditions as unknown[]) : [];
  const index = conditions.findIndex(
    (c) => c !== null && typeof c === 'object' && 'last_transition_time' in c,
  );
  return index >= 0
    ? `conditions.${index}.last_transition_time is managed by the API and must not be sent`
    : undefined;
}

/** Validates a PUT /statuses body as the API's handler does, before the cluster lookup. */
export function parseStatusRequest(body: unknown, now: Date): StatusRequest {
  const request = decode(body);
  const violation = firstViolation(request, now) ?? contractViolation(body ?? {});
  if (violation) throw invalid(violation);
  const conditions = (request.conditions ?? []).map((c) => ({
    type: c?.type ?? '',
    status: c?.status as ReportedCondition['status'],
    ...(present(c?.reason) ? { reason: c.reason } : {}),
    ...(present(c?.message) ? { message: c.message } : {}),
  }));
  const metadata = request.metadata
    ? Object.fromEntries(Object.entries(request.metadata).filter(([, v]) => present(v)))
    : undefined;
  return {
    adapter: request.adapter ?? '',
    observed_generation: request.observed_generation ?? 0,
    observed_time: new Date(request.observed_time ?? now).toISOString(),
    conditions,
    data: request.data ?? {},
    ...(metadata ? { metadata } : {}),
  };
}
