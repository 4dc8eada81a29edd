import { ConfigError } from '../../../shared/errors';
import { loadTracingConfig } from '../../../shared/tracing/config';

describe('loadTracingConfig', () => {
  it('is off by default, pointed at Google, parent-based, named after the component', () => {
    expect(loadTracingConfig({}, 'pullsecret-adapter')).toEqual({
      exporting: false,
      tracesEndpoint: 'https://telemetry.googleapis.com/v1/traces',
      headers: {},
      exportTimeoutMs: 10000,
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

describe('loadTracingConfig: service name and exporter settings', () => {
  it('takes service.name from OTEL_SERVICE_NAME, then OTEL_RESOURCE_ATTRIBUTES, then the default', () => {
    const attributes = 'service.name=from-attributes,team=a';
    expect(loadTracingConfig({ OTEL_RESOURCE_ATTRIBUTES: attributes }, 'x').serviceName).toBe(
      'from-attributes',
    );
    expect(
      loadTracingConfig(
        { OTEL_RESOURCE_ATTRIBUTES: attributes, OTEL_SERVICE_NAME: 'from-name' },
        'x',
      ).serviceName,
    ).toBe('from-name');
    expect(loadTracingConfig({ OTEL_RESOURCE_ATTRIBUTES: 'team=a' }, 'x').serviceName).toBe('x');
  });

  it('defaults to http/json, no extra headers and a 10 s export timeout', () => {
    expect(loadTracingConfig({}, 'x')).toMatchObject({ headers: {}, exportTimeoutMs: 10000 });
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 'x').exporting).toBe(
      false,
    );
  });

  it.each([
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'http/protobuf'],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'grpc'],
  ])('rejects %s=%s: only http/json is supported', (name, value) => {
    expect(() => loadTracingConfig({ [name]: value }, 'x')).toThrow(
      `${name}: only http/json is supported`,
    );
  });

  it('parses OTLP headers (percent-decoded; the traces variable wins per name)', () => {
    expect(
      loadTracingConfig(
        {
          OTEL_EXPORTER_OTLP_HEADERS: 'api-key=base%20key, x-team=a',
          OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'API-Key=traces-key',
        },
        'x',
      ).headers,
    ).toEqual({ 'api-key': 'traces-key', 'x-team': 'a' });
  });

  it.each(['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'])(
    'rejects malformed %s without echoing it (a secret)',
    (name) => {
      for (const value of [
        'authorization',
        'api-key=s3cret-value,=orphan',
        'bad name=s3cret-value',
      ]) {
        let message = '';
        try {
          loadTracingConfig({ [name]: value }, 'x');
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          message = (error as Error).message;
        }
        expect(message).toContain(`${name}: pair `);
        expect(message).not.toMatch(/s3cret|authorization|orphan/);
      }
    },
  );

  it('reads OTEL_EXPORTER_OTLP_TIMEOUT in milliseconds', () => {
    expect(loadTracingConfig({ OTEL_EXPORTER_OTLP_TIMEOUT: '2500' }, 'x').exportTimeoutMs).toBe(
      2500,
    );
    for (const value of ['0', '2.5s', '-1'])
      expect(() => loadTracingConfig({ OTEL_EXPORTER_OTLP_TIMEOUT: value }, 'x')).toThrow(
        'OTEL_EXPORTER_OTLP_TIMEOUT: must be',
      );
  });
});
