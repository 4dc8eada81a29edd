import { ConfigError } from '../../../shared/errors';
import { loadTracingConfig } from '../../../shared/tracing/config';

describe('loadTracingConfig', () => {
  it('is off by default, pointed at Google, parent-based, named after the component', () => {
    expect(loadTracingConfig({}, 'pullsecret-adapter')).toEqual({
      exporting: false,
      tracesEndpoint: 'https://telemetry.googleapis.com/v1/traces',
      serviceName: 'pullsecret-adapter',
      resourceAttributes: {},
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
    });
  });

  it('exports with OTEL_TRACES_EXPORTER=otlp unless the SDK is disabled', () => {
    expect(loadTracingConfig({ OTEL_TRACES_EXPORTER: 'otlp' }, 'x').exporting).toBe(true);
    expect(
      loadTracingConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'TRUE' }, 'x').exporting,
    ).toBe(false);
    expect(
      loadTracingConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'no' }, 'x').exporting,
    ).toBe(true);
  });

  it('appends /v1/traces to the base endpoint, takes the traces endpoint as is', () => {
    expect(
      loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }, 'x')
        .tracesEndpoint,
    ).toBe('http://127.0.0.1:4318/v1/traces');
    expect(
      loadTracingConfig(
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9999/custom',
        },
        'x',
      ).tracesEndpoint,
    ).toBe('http://127.0.0.1:9999/custom');
  });

  it('reads service name, resource attributes (percent-decoded) and sampler', () => {
    const config = loadTracingConfig(
      {
        OTEL_SERVICE_NAME: 'custom',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod, team=hyper%20fleet,broken,=x',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      },
      'x',
    );
    expect(config).toMatchObject({
      serviceName: 'custom',
      resourceAttributes: { 'deployment.environment': 'prod', team: 'hyper fleet' },
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: 'jaeger' }, 'OTEL_TRACES_EXPORTER: must be otlp or none'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'telemetry.googleapis.com' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER: must be one of'],
    [{ OTEL_TRACES_SAMPLER_ARG: '1.5' }, 'OTEL_TRACES_SAMPLER_ARG: must be a sampling ratio'],
  ])('rejects %j naming the variable', (env, message) => {
    expect(() => loadTracingConfig(env, 'x')).toThrow(ConfigError);
    expect(() => loadTracingConfig(env, 'x')).toThrow(message);
  });
});
