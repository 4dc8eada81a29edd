import * as z from 'zod';
import type { StoredAdapterStatus, StoredCluster } from './model';
import { invalid, type FieldError } from './problem';

const MANDATORY = ['Available', 'Applied', 'Health'] as const;
const PAST_WINDOW_MS = 30 * 60_000;
const FUTURE_WINDOW_MS = 5 * 60_000;

const conditionSchema = z.object({
  type: z.string().min(1),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
  message: z.string().optional(),
});

const requestSchema = z.object({
  adapter: z.string().min(1),
  observed_generation: z.number().int().min(1),
  observed_time: z.iso.datetime({ offset: true }),
  conditions: z.array(conditionSchema),
  data: z.record(z.string(), z.unknown()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type StatusRequest = z.infer<typeof requestSchema>;

/** Validates a PUT /statuses body by the API's rules; throws a 400 Problem listing each field. */
export function validateStatusRequest(body: unknown, now: Date): StatusRequest {
  const parsed = requestSchema.safeParse(body);
  if (!parsed.success) {
    const errors: FieldError[] = parsed.error.issues.map((issue) => ({
      field: issue.path.join('.') || 'body',
      constraint:
        issue.code === 'invalid_type' && issue.input === undefined
          ? 'required'
          : issue.code === 'too_small'
            ? 'min'
            : 'format',
      message: issue.message,
    }));
    throw invalid(
      `Invalid adapter status: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      errors,
    );
  }
  const request = parsed.data;
  const errors: FieldError[] = [];
  const conditions = (body as { conditions?: unknown[] }).conditions ?? [];
  conditions.forEach((condition, index) => {
    if (condition && typeof condition === 'object' && 'last_transition_time' in condition) {
      errors.push({
        field: `conditions.${index}.last_transition_time`,
        message: 'last_transition_time is managed by the API and must not be sent',
      });
    }
  });
  const types = request.conditions.map((c) => c.type);
  for (const type of MANDATORY) {
    if (!types.includes(type))
      errors.push({
        field: 'conditions',
        constraint: 'required',
        message: `condition ${type} is mandatory`,
      });
  }
  const duplicates = types.filter((type, i) => types.indexOf(type) !== i);
  if (duplicates.length > 0)
    errors.push({
      field: 'conditions',
      constraint: 'unique',
      message: `duplicate condition types: ${[...new Set(duplicates)].join(', ')}`,
    });
  const observed = Date.parse(request.observed_time);
  if (observed < now.getTime() - PAST_WINDOW_MS || observed > now.getTime() + FUTURE_WINDOW_MS) {
    errors.push({
      field: 'observed_time',
      constraint: 'format',
      message: 'observed_time must be within 30 minutes in the past and 5 minutes in the future',
    });
  }
  if (errors.length > 0)
    throw invalid(
      `Invalid adapter status: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
      errors,
    );
  return request;
}

/** What the API does with a valid report. */
export type StatusWrite =
  { kind: 'store'; status: StoredAdapterStatus } | { kind: 'discard'; cause: string };

/**
 * Decides whether a report is stored (201) or silently discarded (204), and computes what is stored:
 * `last_transition_time` survives while a condition's status is unchanged.
 */
export function decideStatusWrite(
  cluster: StoredCluster,
  request: StatusRequest,
  now: Date,
): StatusWrite {
  const existing = cluster.statuses.get(request.adapter);
  if (request.observed_generation > cluster.generation) {
    return {
      kind: 'discard',
      cause: `observed_generation ${request.observed_generation} is newer than the cluster's generation ${cluster.generation}`,
    };
  }
  if (existing && request.observed_generation < existing.observed_generation) {
    return {
      kind: 'discard',
      cause: `observed_generation ${request.observed_generation} is older than the stored ${existing.observed_generation}`,
    };
  }
  if (
    existing &&
    request.observed_generation === existing.observed_generation &&
    Date.parse(request.observed_time) < Date.parse(existing.observed_time)
  ) {
    return { kind: 'discard', cause: 'observed_time is older than the stored report' };
  }
  if (existing && request.conditions.find((c) => c.type === 'Available')?.status === 'Unknown') {
    return { kind: 'discard', cause: 'Available=Unknown after a first report' };
  }
  const reportTime = new Date(request.observed_time).toISOString();
  const conditions = request.conditions.map((condition) => {
    const previous = existing?.conditions.find((c) => c.type === condition.type);
    return {
      ...condition,
      last_transition_time:
        previous && previous.status === condition.status
          ? previous.last_transition_time
          : reportTime,
    };
  });
  return {
    kind: 'store',
    status: {
      adapter: request.adapter,
      observed_generation: request.observed_generation,
      observed_time: reportTime,
      conditions,
      ...(request.data ? { data: request.data } : {}),
      ...(request.metadata ? { metadata: request.metadata } : {}),
      created_time: existing?.created_time ?? now.toISOString(),
      last_report_time: reportTime,
    },
  };
}
