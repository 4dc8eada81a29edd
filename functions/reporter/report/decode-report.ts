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

/** The Cloud Audit Logs entry a log sink routes for Cloud Run job executions. */
const logEntrySchema = z.looseObject({
  // The entry's own labels carry the execution's name (run.googleapis.com/execution_name), the
  // field the decoder trusts first; protoPayload.resourceName (namespaces/P/executions/NAME) is the
  // fallback. Neither is documented for this system_event entry, so both are read.
  labels: z.record(z.string(), z.string()).optional(),
  protoPayload: z.looseObject({
    methodName: z.string(),
    resourceName: z.string().optional(),
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
  const { protoPayload, resource, labels } = entry.data;
  if (resource.type !== 'cloud_run_job' || protoPayload.methodName !== '/Jobs.RunJob')
    return {
      kind: 'ignored',
      reason: `log entry ${protoPayload.methodName} on ${resource.type} is not an execution-finished event`,
    };
  const shortName =
    labels?.['run.googleapis.com/execution_name'] ??
    protoPayload.resourceName?.match(/\/executions\/([^/]+)$/)?.[1];
  if (!shortName || !/^[a-z0-9][a-z0-9-]*$/.test(shortName))
    return {
      kind: 'unreadable-finished-entry',
      problem: `no execution name: neither labels["run.googleapis.com/execution_name"] nor protoPayload.resourceName (${protoPayload.resourceName ?? 'absent'}) names one`,
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
