import * as grpc from '@grpc/grpc-js';
import * as z from 'zod';
import { GrpcError } from '../common/grpc-error';

// The google.cloud.tasks.v2 messages as grpc-js decodes them (PROTO_LOADER_OPTIONS: .proto field
// names, int64 as strings, enums as names, unset fields absent), checked where they enter.

/** google.protobuf.Duration / Timestamp: `seconds` is an int64 (a string). */
const secondsAndNanos = z.object({
  seconds: z.union([z.string(), z.number()]).optional(),
  nanos: z.number().optional(),
});
export type SecondsAndNanos = z.infer<typeof secondsAndNanos>;

/** Milliseconds of a Duration or Timestamp. */
export const toMs = (value: SecondsAndNanos): number =>
  Number(value.seconds ?? 0) * 1000 + Math.floor((value.nanos ?? 0) / 1e6);

/** A Duration or Timestamp of milliseconds. */
export const fromMs = (ms: number): { seconds: string; nanos: number } => ({
  seconds: String(Math.floor(ms / 1000)),
  nanos: (ms % 1000) * 1e6,
});

export const rateLimitsSchema = z.object({
  max_dispatches_per_second: z.number().optional(),
  max_burst_size: z.number().optional(),
  max_concurrent_dispatches: z.number().optional(),
});

export const retryConfigSchema = z.object({
  max_attempts: z.number().optional(),
  max_retry_duration: secondsAndNanos.optional(),
  min_backoff: secondsAndNanos.optional(),
  max_backoff: secondsAndNanos.optional(),
  max_doublings: z.number().optional(),
});

/** Queue as CreateQueue/UpdateQueue send it; fields the emulator does not model pass through. */
export const queueSchema = z.looseObject({
  name: z.string().optional(),
  rate_limits: rateLimitsSchema.optional(),
  retry_config: retryConfigSchema.optional(),
});
export type QueueInput = z.infer<typeof queueSchema>;

const oauthTokenSchema = z.object({
  service_account_email: z.string().optional(),
  scope: z.string().optional(),
});
const oidcTokenSchema = z.object({
  service_account_email: z.string().optional(),
  audience: z.string().optional(),
});

export const httpRequestSchema = z.object({
  url: z.string().optional(),
  http_method: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.instanceof(Buffer).optional(),
  oauth_token: oauthTokenSchema.optional(),
  oidc_token: oidcTokenSchema.optional(),
});
export type HttpRequestInput = z.infer<typeof httpRequestSchema>;

/** Task as CreateTask sends it. */
export const taskSchema = z.looseObject({
  name: z.string().optional(),
  http_request: httpRequestSchema.optional(),
  app_engine_http_request: z.unknown().optional(),
  schedule_time: secondsAndNanos.optional(),
  dispatch_deadline: secondsAndNanos.optional(),
});
export type TaskInput = z.infer<typeof taskSchema>;

/** Task.View: BASIC unless FULL is asked for ("Unspecified. Defaults to BASIC."). */
export type View = 'BASIC' | 'FULL';
export const viewOf = (value: unknown): View => (value === 'FULL' ? 'FULL' : 'BASIC');

/** FieldMask.paths of an UpdateQueue. */
export const updateMaskSchema = z.object({ paths: z.array(z.string()).default([]) }).optional();

/** Checks a decoded message against its schema; INVALID_ARGUMENT naming the field otherwise. */
export function decode<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new GrpcError(
    grpc.status.INVALID_ARGUMENT,
    `${what}${issue?.path.length ? `.${issue.path.join('.')}` : ''}: ${issue?.message ?? 'invalid'}`,
  );
}
