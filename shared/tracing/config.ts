import * as z from 'zod';
import { parseEnv, type Env } from '../config/parse-env';
import { otlpHeadersSchema } from './otlp-headers';

/** Samplers named as OTEL_TRACES_SAMPLER spells them (the OpenTelemetry SDK environment spec). */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSamplerName = (typeof TRACE_SAMPLERS)[number];

/** Where spans go in production: Google's Telemetry (OTLP) API. */
export const GOOGLE_TELEMETRY_ENDPOINT = 'https://telemetry.googleapis.com';

/** The only OTLP protocol bundled (the HTTP exporter with JSON bodies). */
export const OTLP_PROTOCOL = 'http/json';
const protocol = z.literal(OTLP_PROTOCOL, {
  message:
    'only http/json is supported (the bundled exporter is OTLP/HTTP JSON; grpc and http/protobuf are not)',
});

/** The exporter's default bound on one export request (OTLP exporter spec: 10 s). */
export const DEFAULT_EXPORT_TIMEOUT_MS = 10000;

const url = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });

/**
 * The standard OTEL_* variables this project reads; keys are the variable names. Components
 * spread `tracingEnvShape` into their own env schema so docs/configuration.md tables list these rows too.
 */
export const tracingConfigSchema = z.object({
  // The spec's boolean: only "true" (any case) disables; anything else leaves the SDK on.
  OTEL_SDK_DISABLED: z
    .string()
    .default('false')
    .transform((value) => value.toLowerCase() === 'true'),
  // Our default is `none` (the spec's is otlp): export costs a request per event and needs IAM.
  OTEL_TRACES_EXPORTER: z
    .enum(['otlp', 'none'], { message: 'must be otlp or none (no other exporter is bundled)' })
    .default('none'),
  OTEL_EXPORTER_OTLP_ENDPOINT: url.default(GOOGLE_TELEMETRY_ENDPOINT),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url.optional(),
  // Our default is http/json (the spec's is http/protobuf): the one protocol the bundle carries.
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol.default(OTLP_PROTOCOL),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: otlpHeadersSchema.optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: otlpHeadersSchema.optional(),
  OTEL_EXPORTER_OTLP_TIMEOUT: z
    .string()
    .regex(/^\d{1,7}$/, 'must be a whole number of milliseconds, such as 10000')
    .transform(Number)
    .refine((ms) => ms > 0, 'must be more than 0 milliseconds')
    .default(DEFAULT_EXPORT_TIMEOUT_MS),
  OTEL_SERVICE_NAME: z.string().optional(),
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
  OTEL_TRACES_SAMPLER: z
    .enum(TRACE_SAMPLERS, { message: `must be one of ${TRACE_SAMPLERS.join(', ')}` })
    .default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a sampling ratio between 0 and 1, such as 0.25')
    .transform(Number)
    .optional(),
});

/** The variables as an object shape, to spread into a component's env schema. */
export const tracingEnvShape = tracingConfigSchema.shape;
type TracingEnv = z.output<typeof tracingConfigSchema>;

/** Validated tracing settings of one component. */
export interface TracingConfig {
  /** Spans are recorded and sent (OTEL_TRACES_EXPORTER=otlp and the SDK not disabled). */
  readonly exporting: boolean;
  /** The full OTLP/HTTP traces URL, e.g. https://telemetry.googleapis.com/v1/traces. */
  readonly tracesEndpoint: string;
  /**
   * Extra headers of every export (OTEL_EXPORTER_OTLP_HEADERS, the traces variable's win). A
   * secret: never logged.
   */
  readonly headers: Readonly<Record<string, string>>;
  /** Bound on one export request, in milliseconds (OTEL_EXPORTER_OTLP_TIMEOUT). */
  readonly exportTimeoutMs: number;
  /** OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES' service.name, else the component's. */
  readonly serviceName: string;
  /** From OTEL_RESOURCE_ATTRIBUTES (decoded). */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: TraceSamplerName;
  /** The ratio of the traceidratio samplers (default 1). */
  readonly samplerRatio: number;
}

/** Reads the OTEL_* variables; throws ConfigError naming the variable at fault. */
export function loadTracingConfig(env: Env, defaultServiceName: string): TracingConfig {
  return toTracingConfig(parseEnv(tracingConfigSchema, env, 'tracing'), defaultServiceName);
}

/** Builds TracingConfig from a component schema's parsed output (which spread tracingEnvShape). */
export function toTracingConfig(e: TracingEnv, defaultServiceName: string): TracingConfig {
  const resourceAttributes = parseResourceAttributes(e.OTEL_RESOURCE_ATTRIBUTES);
  return {
    exporting: !e.OTEL_SDK_DISABLED && e.OTEL_TRACES_EXPORTER === 'otlp',
    // The signal-specific variable is used as is; the base one gets the signal path (OTLP spec).
    tracesEndpoint:
      e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
      `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`,
    headers: { ...e.OTEL_EXPORTER_OTLP_HEADERS, ...e.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    exportTimeoutMs: e.OTEL_EXPORTER_OTLP_TIMEOUT,
    // The spec's precedence: OTEL_SERVICE_NAME, then service.name in the resource attributes.
    serviceName: e.OTEL_SERVICE_NAME ?? resourceAttributes['service.name'] ?? defaultServiceName,
    resourceAttributes,
    sampler: e.OTEL_TRACES_SAMPLER,
    samplerRatio: e.OTEL_TRACES_SAMPLER_ARG ?? 1,
  };
}

/** `key1=value1,key2=value2` with percent-encoded values (W3C Baggage octets), as the spec says. */
function parseResourceAttributes(text: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const key = at > 0 ? pair.slice(0, at).trim() : '';
    if (key === '') continue; // the spec: an invalid pair is skipped, the rest still applies
    try {
      attributes[key] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      attributes[key] = pair.slice(at + 1).trim();
    }
  }
  return attributes;
}
