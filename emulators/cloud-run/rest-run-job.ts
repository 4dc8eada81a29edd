import type { IncomingMessage, ServerResponse } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import * as z from 'zod';
import type { FaultInjector } from '../common/fault-injector';
import { sleep } from '../common/fault-injector';
import { bearerToken, MISSING_CREDENTIALS_MESSAGE } from '../common/google-caller';
import { GrpcError, parseGrpcCode } from '../common/grpc-error';
import { BodyError, readJson, sendJson } from '../common/http';
import { googleJsonError } from '../common/http-grpc-status';
import type { RequestLog } from '../common/request-log';
import type { RunJobOverrides } from './run-job-rules';

// The Cloud Run Admin API's REST form of RunJob,
// `POST https://run.googleapis.com/v2/{name=projects/*/locations/*/jobs/*}:run` with a
// RunJobRequest body (https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs/run),
// what a Cloud Tasks HTTP target calls to launch an execution. It answers a
// google.longrunning.Operation whose `metadata` is the Execution, in proto3 JSON.

const ROUTE = /^\/v2\/(projects\/[^/]+\/locations\/[^/]+\/jobs\/[^/:]+):run$/;

/** A Duration in JSON: seconds with up to nine fractional digits and an `s`. */
const durationJson = z.string().regex(/^-?\d+(\.\d{1,9})?s$/, 'must be a duration such as "600s"');

/** RunJobRequest in JSON (lowerCamelCase); an unknown field is refused, as Google's front end does. */
const runJobRequestSchema = z.strictObject({
  validateOnly: z.boolean().optional(),
  etag: z.string().optional(),
  overrides: z
    .strictObject({
      containerOverrides: z
        .array(
          z.strictObject({
            name: z.string().optional(),
            args: z.array(z.string()).optional(),
            env: z
              .array(z.strictObject({ name: z.string(), value: z.string().optional() }))
              .optional(),
            clearArgs: z.boolean().optional(),
          }),
        )
        .optional(),
      taskCount: z.number().int().optional(),
      timeout: durationJson.optional(),
    })
    .optional(),
});

/** The JSON overrides as grpc-js decodes the same RunJobRequest (snake_case), for run-job-rules.ts. */
function grpcOverrides(body: z.infer<typeof runJobRequestSchema>): RunJobOverrides {
  const overrides = body.overrides ?? {};
  return {
    ...(overrides.containerOverrides
      ? {
          container_overrides: overrides.containerOverrides.map((c) => ({
            ...(c.name !== undefined ? { name: c.name } : {}),
            ...(c.args !== undefined ? { args: c.args } : {}),
            ...(c.env !== undefined ? { env: c.env } : {}),
            ...(c.clearArgs !== undefined ? { clear_args: c.clearArgs } : {}),
          })),
        }
      : {}),
    ...(overrides.taskCount !== undefined ? { task_count: overrides.taskCount } : {}),
    ...(overrides.timeout !== undefined
      ? { timeout: { seconds: String(Math.floor(Number(overrides.timeout.slice(0, -1)))) } }
      : {}),
  };
}

/** What the route needs from the emulator: the same RunJob the gRPC surface runs. */
export interface RestRunJobContext {
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  /** RunJob with the gRPC request's fields (quota, job lookup, override rules); the operation's name. */
  readonly runJob: (request: Record<string, unknown>) => string;
  /** The operation in proto3 JSON. */
  readonly operationJson: (operationName: string) => Record<string, unknown>;
  /**
   * IAM, when configured: authenticates the `Authorization` header (throws UNAUTHENTICATED), and
   * answers the check of a RunJob request (its `name`, and `overrides` when the body has them),
   * which throws PERMISSION_DENIED.
   */
  readonly authorize?: (
    authorization: string | undefined,
  ) => Promise<(request: Readonly<Record<string, unknown>>) => void>;
}

function parseBody(value: unknown): z.infer<typeof runJobRequestSchema> {
  const parsed = runJobRequestSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` at '${issue.path.join('.')}'` : '';
  const message =
    issue?.code === 'unrecognized_keys'
      ? `Invalid JSON payload received. Unknown name "${issue.keys[0]}"${where}: Cannot find field.`
      : `Invalid JSON payload received${where}: ${issue?.message ?? 'invalid'}.`;
  throw new GrpcError(grpc.status.INVALID_ARGUMENT, message);
}

/**
 * Serves `POST /v2/projects/P/locations/L/jobs/J:run`; false for any other request. It needs an
 * `Authorization: Bearer` header (401 UNAUTHENTICATED without one, before anything else, as
 * Google's front end), then takes the injected fault of `RunJob` for the job, as the gRPC RunJob
 * does (grpc-server.ts); with IAM configured it authenticates the token (401 for one Google would
 * not accept), reads the body (a malformed one is 400), then checks run.jobs.run, and
 * run.jobs.runWithOverrides when the body has `overrides` (403: before the job is looked up, so a
 * refusal tells nothing of its existence); then it runs the same RunJob: the quota, the job's
 * existence, the override rules. An error answers Google's JSON error body with the HTTP status
 * of its gRPC code.
 */
export async function handleRestRunJob(
  req: IncomingMessage,
  res: ServerResponse,
  context: RestRunJobContext,
): Promise<boolean> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const match = ROUTE.exec(path);
  if (!match || req.method !== 'POST') return false;
  const job = match[1]!;
  const record = (outcome: string) =>
    context.requests.add({
      method: 'RunJob',
      target: job,
      outcome,
      client: req.headers['user-agent'] ?? '',
    });
  try {
    if (bearerToken(req.headers.authorization) === undefined)
      throw new GrpcError(grpc.status.UNAUTHENTICATED, MISSING_CREDENTIALS_MESSAGE);
    const fault = context.faults.take('RunJob', job);
    if (fault?.delayMs) await sleep(fault.delayMs);
    if (fault?.held) await fault.held;
    const injected = () => {
      const code = parseGrpcCode(fault!.status!);
      return new GrpcError(code, fault!.message ?? `injected fault: ${grpc.status[code]}`);
    };
    if (fault?.status !== undefined && !fault.after) throw injected();
    const check = await context.authorize?.(req.headers.authorization);
    const body = parseBody(await readJson(req));
    const request = {
      name: job,
      ...(body.overrides !== undefined ? { overrides: grpcOverrides(body) } : {}),
      ...(body.validateOnly !== undefined ? { validate_only: body.validateOnly } : {}),
    };
    check?.(request);
    const operation = context.runJob(request);
    // "Perform, then fail": the execution exists, the caller sees only the error.
    if (fault?.status !== undefined) throw injected();
    record('OK');
    sendJson(res, 200, context.operationJson(operation));
  } catch (error) {
    const grpcError =
      error instanceof GrpcError
        ? error
        : error instanceof BodyError
          ? new GrpcError(grpc.status.INVALID_ARGUMENT, error.message)
          : new GrpcError(
              grpc.status.INTERNAL,
              error instanceof Error ? error.message : String(error),
            );
    record(grpc.status[grpcError.code]);
    const body = googleJsonError(grpcError.code, grpcError.message);
    sendJson(res, body.error.code, body);
  }
  return true;
}
