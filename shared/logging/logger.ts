import winston from 'winston';
import {
  LOGGING_SAMPLED_KEY,
  LOGGING_SPAN_KEY,
  LOGGING_TRACE_KEY,
  LoggingWinston,
} from '@google-cloud/logging-winston';
import { TraceFlags } from '@opentelemetry/api';
import { currentSpanContext } from '../tracing/traceparent';
import type { SecretRedactor } from './secret-redactor';

/** Log levels accepted by LOG_LEVEL. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `json` for Cloud Logging (default), `text` for people at a terminal. */
export const LOG_FORMATS = ['json', 'text'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Structured fields attached to a log line (snake_case, as log-based metrics expect). */
export type LogFields = Readonly<Record<string, unknown>>;

/** The logging port every component receives. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

/** The process logger; `close` waits until every line is written (call it before exiting). */
export interface RootLogger extends Logger {
  close(): Promise<void>;
}

export interface LoggerOptions {
  readonly component: string;
  readonly level: LogLevel;
  readonly format: LogFormat;
  readonly projectId?: string;
  readonly redactor?: SecretRedactor;
}

/**
 * Builds the process logger. JSON lines go through @google-cloud/logging-winston with
 * `redirectToStdout`, the mode its docs recommend for Cloud Run: the platform's agent parses each
 * stdout line, so nothing is lost when an instance or job ends abruptly. The library puts our
 * fields under `metadata` (Cloud Logging: `jsonPayload.metadata.*`), except the trace fields
 * below, which it lifts to the top level of the line where Cloud Logging reads them.
 */
export function createLogger(options: LoggerOptions): RootLogger {
  const redact = winston.format((info) => {
    if (!options.redactor) return info;
    const redacted = options.redactor.redact({ ...info });
    return Object.assign(info, redacted);
  });
  const transport =
    options.format === 'json'
      ? new LoggingWinston({
          redirectToStdout: true,
          useMessageField: false,
          logName: options.component,
          ...(options.projectId ? { projectId: options.projectId } : {}),
        })
      : new winston.transports.Stream({
          stream: process.stderr,
          format: winston.format.printf((info) => formatText(info)),
        });
  const root = winston.createLogger({
    level: options.level,
    format: redact(),
    defaultMeta: { component: options.component },
    transports: [transport],
  });
  let closed: Promise<void> | undefined;
  const traceFields = options.format === 'json' ? cloudLoggingTrace(options.projectId) : textTrace;
  return {
    ...wrap(root, traceFields),
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        root.once('finish', () => setImmediate(resolve));
        root.end();
      })),
  };
}

function formatText(info: winston.Logform.TransformableInfo): string {
  const { level, message, component, ...rest } = info;
  const fields = Object.entries(rest)
    .filter(([key]) => typeof key === 'string')
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  const time = new Date().toISOString().slice(11, 23);
  return `${time} ${level.toUpperCase().padEnd(5)} [${String(component)}] ${String(message)}${fields ? `  ${fields}` : ''}`;
}

/** The fields that tie a line to the active span (none outside a span). */
type TraceFields = () => LogFields;

/**
 * Cloud Logging's trace fields, under the keys logging-winston lifts to the top level of the stdout
 * JSON (`logging.googleapis.com/trace`, `.../spanId`, `.../trace_sampled`): the Logs Explorer groups
 * one reconcile's lines by them and links each to its span in Cloud Trace. Without a project id the
 * trace is the bare id (still one group per reconcile; no link to Cloud Trace).
 */
function cloudLoggingTrace(projectId: string | undefined): TraceFields {
  return () => {
    const span = currentSpanContext();
    if (!span) return {};
    return {
      [LOGGING_TRACE_KEY]: projectId
        ? `projects/${projectId}/traces/${span.traceId}`
        : span.traceId,
      [LOGGING_SPAN_KEY]: span.spanId,
      [LOGGING_SAMPLED_KEY]: (span.traceFlags & TraceFlags.SAMPLED) !== 0,
    };
  };
}

/** At a terminal, the trace id is enough to find a reconcile's lines (and `npm run trace`). */
const textTrace: TraceFields = () => {
  const span = currentSpanContext();
  return span ? { trace: span.traceId } : {};
};

function wrap(target: winston.Logger, traceFields: TraceFields): Logger {
  const log = (level: LogLevel, message: string, fields?: LogFields) =>
    target.log(level, message, { ...fields, ...traceFields() });
  return {
    debug: (message, fields) => log('debug', message, fields),
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
    child: (fields) => wrap(target.child({ ...fields }), traceFields),
  };
}
