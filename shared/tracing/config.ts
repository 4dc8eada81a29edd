import { z } from 'zod';
import { parseEnv, type Env } from '../config/parse-env';

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

const url = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });

/**
 * The standard OTEL_* variables this project reads; keys are the variable names. Components
 * spread `tracingEnvShape` into their own env schema so README tables list these rows too.
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
  return {
    exporting: !e.OTEL_SDK_DISABLED && e.OTEL_TRACES_EXPORTER === 'otlp',
    // The signal-specific variable is used as is; the base one gets the signal path (OTLP spec).
    tracesEndpoint:
      e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
      `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`,
    serviceName: e.OTEL_SERVICE_NAME ?? defaultServiceName,
    resourceAttributes: parseResourceAttributes(e.OTEL_RESOURCE_ATTRIBUTES),
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
