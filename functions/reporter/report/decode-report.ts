import * as z from 'zod';
import { PUBSUB_MESSAGE_PUBLISHED, type IncomingCloudEvent } from '../../../shared/events/decode';
import { describeFirstIssue } from '../../../shared/zod-issue';
import {
  jobResultSchema,
  jobStartedSchema,
  RESULT_MESSAGE_TYPE,
  STARTED_MESSAGE_TYPE,
  type JobResult,
  type JobStarted,
} from '../../../shared/job-result';
import { parseTraceExtensions, type CarriedTrace } from '../../../shared/tracing/trace-extensions';

/** The publisher's span (the job's `pubsub.publish_result`): the parent of the reporter's work. */
export type MessageTrace = CarriedTrace;

export type DecodedReport = (
  | { readonly kind: 'job-result'; readonly result: JobResult }
  /** The job's report of its own start (attribute type `pullsecret.job.started`). */
  | { readonly kind: 'job-started'; readonly started: JobStarted }
  | { readonly kind: 'execution-finished'; readonly execution: string; readonly statusCode: number }
  | { readonly kind: 'ignored'; readonly reason: string }
  | { readonly kind: 'malformed'; readonly problem: string }
  /**
   * A Cloud Run execution-finished entry whose shape this code does not understand: Cloud Run
   * documents no schema for it, so a change there must be loud (ERROR, a metric), never a silent
   * acknowledgement.
   */
  | { readonly kind: 'unreadable-finished-entry'; readonly problem: string }
) & { readonly trace?: MessageTrace };

/**
 * The message attributes `traceparent` and `tracestate` (the job sets them from its publish span).
 * A bad one is dropped, never the report: tracing must not cost a status. The log sink's
 * execution-finished messages carry none, nor does a result published without tracing.
 */
export function messageTrace(
  attributes: Readonly<Record<string, string>> | undefined,
): MessageTrace | undefined {
  return parseTraceExtensions(attributes).trace;
}

const envelopeSchema = z.looseObject({
  message: z.looseObject({
    data: z.string().min(1),
    attributes: z.record(z.string(), z.string()).optional(),
  }),
});

/**
 * RunJob's Data Access entries (v1 and v2 method names: https://cloud.google.com/run/docs/audit-logging).
 * v2 RunJob is a long-running operation: "usually two audit log entries: one when the operation
 * starts and another when it ends", told apart by `operation.first` / `operation.last`
 * (https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry#logentryoperation).
 */
const RUN_JOB_METHODS = new Set([
  'google.cloud.run.v2.Jobs.RunJob',
  'google.cloud.run.v1.Jobs.RunJob',
]);
/** The system_event entry Cloud Run writes when an execution ends (not on Google's method list). */
const EXECUTION_FINISHED_METHOD = '/Jobs.RunJob';

/** The Cloud Audit Logs entry a log sink routes for Cloud Run job executions. */
const logEntrySchema = z.looseObject({
  operation: z.looseObject({ last: z.boolean().optional() }).optional(),
  // The entry's own labels carry the execution's name (run.googleapis.com/execution_name), the
  // field the decoder trusts first; protoPayload.resourceName (namespaces/P/executions/NAME) is the
  // fallback. Neither is documented for this system_event entry, so both are read.
  labels: z.record(z.string(), z.string()).optional(),
  protoPayload: z.looseObject({
    methodName: z.string(),
    resourceName: z.string().optional(),
    // The RunJob operation's completion entry carries the Execution (v2: `name` is its full name).
    response: z.looseObject({ name: z.string().optional() }).optional(),
    status: z
      .looseObject({ code: z.number().optional(), message: z.string().optional() })
      .optional(),
  }),
  resource: z.looseObject({
    type: z.string(),
    labels: z.looseObject({ job_name: z.string(), location: z.string(), project_id: z.string() }),
  }),
});

/**
 * Decodes a Pub/Sub message from the results topic (a job result, attribute type
 * `pullsecret.job.result`, or a start report, `pullsecret.job.started`) or the execution-finished
 * topic (a log entry). Entries of other jobs or
 * methods are ignored; anything unreadable is malformed. Never throws.
 */
export function decodeReport(incoming: IncomingCloudEvent, jobName: string): DecodedReport {
  if (incoming.type !== PUBSUB_MESSAGE_PUBLISHED)
    return {
      kind: 'malformed',
      problem: `expected a Pub/Sub messagePublished event, got ${incoming.type ?? 'no type'}`,
    };
  const envelope = envelopeSchema.safeParse(incoming.data);
  if (!envelope.success)
    return {
      kind: 'malformed',
      problem: `invalid Pub/Sub envelope: ${describeFirstIssue(envelope.error)}`,
    };
  const decoded = decodeMessage(envelope.data.message, jobName);
  const trace = messageTrace(envelope.data.message.attributes);
  return trace ? { ...decoded, trace } : decoded;
}

function decodeMessage(
  message: { data: string; attributes?: Record<string, string> | undefined },
  jobName: string,
): DecodedReport {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(message.data, 'base64').toString('utf8'));
  } catch {
    return {
      kind: 'malformed',
      problem: 'message.data: not base64-encoded JSON (expected a job result or a log entry)',
    };
  }
  if (message.attributes?.type === STARTED_MESSAGE_TYPE) {
    const started = jobStartedSchema.safeParse(json);
    return started.success
      ? { kind: 'job-started', started: started.data }
      : {
          kind: 'malformed',
          problem: `invalid start report: ${describeFirstIssue(started.error)}`,
        };
  }
  if (
    message.attributes?.type === RESULT_MESSAGE_TYPE ||
    (json !== null && typeof json === 'object' && 'outcome' in json && 'cluster_id' in json)
  ) {
    const result = jobResultSchema.safeParse(json);
    if (!result.success)
      return {
        kind: 'malformed',
        problem: `invalid job result: ${describeFirstIssue(result.error)}`,
      };
    return { kind: 'job-result', result: result.data };
  }
  const entry = logEntrySchema.safeParse(json);
  if (!entry.success)
    return looksLikeLogEntry(json)
      ? {
          kind: 'unreadable-finished-entry',
          problem: `a log entry this reporter cannot read as Cloud Run's execution-finished entry: ${describeFirstIssue(entry.error)}`,
        }
      : {
          kind: 'malformed',
          problem: `message.data: neither a job result nor a Cloud Run audit log entry (as a log entry: ${describeFirstIssue(entry.error)})`,
        };
  const { protoPayload, resource, labels, operation } = entry.data;
  const method = protoPayload.methodName;
  if (resource.type !== 'cloud_run_job')
    return {
      kind: 'ignored',
      reason: `log entry ${method} on ${resource.type} is not about a job`,
    };
  if (RUN_JOB_METHODS.has(method) && operation?.last !== true)
    return {
      kind: 'ignored',
      reason: `the ${method} request entry: the execution has only been created; its end is reported from the entry written when it finishes`,
    };
  if (!RUN_JOB_METHODS.has(method) && method !== EXECUTION_FINISHED_METHOD)
    return { kind: 'ignored', reason: `log entry ${method} is not an execution-finished event` };
  // The entry's labels name the execution on the system_event entry, its resourceName
  // (namespaces/P/executions/NAME) too; the operation's completion entry names it in the response.
  const shortName =
    labels?.['run.googleapis.com/execution_name'] ??
    protoPayload.resourceName?.match(/\/executions\/([^/]+)$/)?.[1] ??
    protoPayload.response?.name?.match(/\/executions\/([^/]+)$/)?.[1];
  if (!shortName || !/^[a-z0-9][a-z0-9-]*$/.test(shortName))
    return {
      kind: 'unreadable-finished-entry',
      problem: `no execution name: neither labels["run.googleapis.com/execution_name"], protoPayload.resourceName (${protoPayload.resourceName ?? 'absent'}) nor protoPayload.response.name names one`,
    };
  const { project_id: project, location, job_name: job } = resource.labels;
  const execution = `projects/${project}/locations/${location}/jobs/${job}/executions/${shortName}`;
  if (!execution.startsWith(`${jobName}/executions/`))
    return {
      kind: 'ignored',
      reason: `execution ${execution} belongs to another job than ${jobName}`,
    };
  return { kind: 'execution-finished', execution, statusCode: protoPayload.status?.code ?? 0 };
}

/** An audit log entry of some shape (what the execution-finished sink routes), not other JSON. */
function looksLikeLogEntry(json: unknown): boolean {
  return json !== null && typeof json === 'object' && ('protoPayload' in json || 'logName' in json);
}
