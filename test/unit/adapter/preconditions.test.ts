import {
  compilePreconditions,
  DEFAULT_PRECONDITIONS,
  evaluatePreconditions,
  type PreconditionContext,
} from '../../../functions/adapter/decision/preconditions';
import { ConfigError } from '../../../shared/errors';

const available = (adapter: string, generation: number, status = 'True') => ({
  adapter,
  observed_generation: generation,
  conditions: [{ type: 'Available', status }],
});
const allAdapters = (generation: number) => ({
  validation: available('validation', generation),
  dns: available('dns', generation),
  placement: available('placement', generation),
});
const currentShape = {
  platform: { type: 'gcp', gcp: { projectID: 'customer-project' } },
  pullSecret: { data: '{"auths":{}}' },
};
const olderShape = {
  provider: 'gcp',
  gcp: { projectId: 'customer-project' },
  pullSecret: { data: '{"auths":{}}' },
};
const context = (
  spec: unknown,
  overrides: Partial<PreconditionContext> = {},
): PreconditionContext => ({
  cluster: { id: 'c1', generation: 2, spec },
  statuses: allAdapters(2),
  event: { id: 'e1', generation: 2 },
  pullSecret: { inSpec: true, additionalInSpec: false, defaultConfigured: false },
  ...overrides,
});
const defaults = compilePreconditions(DEFAULT_PRECONDITIONS);

describe('default preconditions (CEL)', () => {
  it.each([
    ['the current API shape', currentShape],
    ['the older design-document shape', olderShape],
  ])('are met for a ready cluster in %s', (_name, spec) => {
    expect(evaluatePreconditions(defaults, context(spec))).toEqual({ kind: 'met' });
  });

  it.each<[string, PreconditionContext, string]>([
    [
      'another platform',
      context({ ...currentShape, platform: { type: 'aws', gcp: { projectID: 'p' } } }),
      'platformIsGcp',
    ],
    ['older shape, another provider', context({ ...olderShape, provider: 'aws' }), 'platformIsGcp'],
    ['no platform at all', context({}), 'platformIsGcp'],
    [
      'empty project id',
      context({ ...currentShape, platform: { type: 'gcp', gcp: { projectID: '' } } }),
      'gcpProjectIdSet',
    ],
    ['older shape without project', context({ provider: 'gcp' }), 'gcpProjectIdSet'],
    [
      'no pull secret and no default',
      context(currentShape, {
        pullSecret: { inSpec: false, additionalInSpec: false, defaultConfigured: false },
      }),
      'pullSecretSourceConfigured',
    ],
    [
      'validation missing',
      context(currentShape, {
        statuses: { dns: available('dns', 2), placement: available('placement', 2) },
      }),
      'validationAvailable',
    ],
    [
      'dns not available',
      context(currentShape, { statuses: { ...allAdapters(2), dns: available('dns', 2, 'False') } }),
      'dnsAvailable',
    ],
    [
      'placement at an older generation',
      context(currentShape, {
        statuses: { ...allAdapters(2), placement: available('placement', 1) },
      }),
      'placementAvailable',
    ],
  ])('name the first failing precondition: %s', (_name, ctx, expected) => {
    const result = evaluatePreconditions(defaults, ctx);
    expect(result).toMatchObject({ kind: 'not-met', name: expected });
    expect((result as { message: string }).message).toMatch(
      new RegExp(`^Precondition ${expected} is not met: .{20,}`),
    );
  });

  it('accepts a default pull secret instead of one in the spec', () => {
    expect(
      evaluatePreconditions(
        defaults,
        context(currentShape, {
          pullSecret: { inSpec: false, additionalInSpec: false, defaultConfigured: true },
        }),
      ),
    ).toEqual({ kind: 'met' });
  });

  it('reports an expression that fails to evaluate as an error, not a crash', () => {
    // A status without observed_generation: the expression reads a key that is not there.
    const result = evaluatePreconditions(
      defaults,
      context(currentShape, {
        statuses: { ...allAdapters(2), validation: { adapter: 'validation' } },
      }),
    );
    expect(result).toMatchObject({
      kind: 'error',
      name: 'validationAvailable',
      message: expect.stringContaining('failed to evaluate'),
    });

    const custom = compilePreconditions([
      { name: 'notBoolean', expression: 'cluster.generation + 1' },
    ]);
    expect(evaluatePreconditions(custom, context(currentShape))).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('not a boolean'),
    });
  });

  it('reports a CEL error as a fixed text naming the expression, never the value it met', () => {
    const expression = 'int(cluster.spec.note) > 0';
    const custom = compilePreconditions([{ name: 'noteIsNumber', expression }]);
    const result = evaluatePreconditions(
      custom,
      context({ ...currentShape, note: 'canary-value-4f1d9a' }),
    );
    expect(result).toEqual({
      kind: 'error',
      name: 'noteIsNumber',
      message: `Precondition noteIsNumber failed to evaluate: its CEL expression \`${expression}\` raised an error (a missing key, a type mismatch or a failed conversion; the values involved are not shown); guard what it reads with has() and type checks`,
    });
  });

  it('supports custom expressions over cluster, statuses and event', () => {
    const custom = compilePreconditions([
      { name: 'notEarlier', expression: 'event.generation >= cluster.generation' },
      {
        name: 'labelled',
        expression: 'has(cluster.labels) && cluster.labels["tier"] == "gold"',
        message: 'the cluster is not gold tier',
      },
    ]);
    const ctx = context(currentShape, {
      cluster: { generation: 2, labels: { tier: 'silver' }, spec: currentShape },
    });
    expect(evaluatePreconditions(custom, ctx)).toEqual({
      kind: 'not-met',
      name: 'labelled',
      message: 'Precondition labelled is not met: the cluster is not gold tier',
    });
  });

  it('refuses an expression that does not parse, at start', () => {
    expect(() =>
      compilePreconditions([{ name: 'broken', expression: 'cluster.generation >' }]),
    ).toThrow(ConfigError);
  });
});
