import {
  prune,
  schemaProblems,
  validate,
  type Schema,
} from '../../../emulators/kube-apiserver/crds/structural-schema';
import { renderFenceText } from '../../../emulators/pullsecret/management-cluster/fence-policy';

/** CRD schema checks and pruning, and the fence template renderer: pure pieces of the emulator. */
const schema: Schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1 },
        replicas: { type: 'integer', minimum: 0 },
        mode: { type: 'string', enum: ['a', 'b'] },
        port: { 'x-kubernetes-int-or-string': true },
        tags: { type: 'array', items: { type: 'string' } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        maybe: { type: 'string', nullable: true },
      },
    },
  },
};

describe('CRD structural schemas', () => {
  it('prunes unknown fields and non-nullable nulls, keeps preserved and additional properties', () => {
    const { value, dropped } = prune(schema, {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'n' },
      extra: 1,
      spec: {
        name: 'a',
        bogus: true,
        replicas: null,
        maybe: null,
        free: { any: { deep: 1 } },
        labels: { k: 'v' },
        tags: ['t'],
      },
    });
    expect(value).toEqual({
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'n' },
      spec: { name: 'a', maybe: null, free: { any: { deep: 1 } }, labels: { k: 'v' }, tags: ['t'] },
    });
    expect(dropped).toEqual(['extra', 'spec.bogus']);
  });

  it('reports types, required fields, enums and bounds with the API server wording', () => {
    const causes = validate(schema, {
      spec: {
        replicas: 'three',
        mode: 'c',
        port: true,
        tags: ['ok', 2],
        labels: { k: 1 },
        maybe: null,
      },
    });
    expect(causes.map((c) => `${c.field}: ${c.message}`)).toEqual([
      'spec.name: Required value',
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      'spec.mode: Unsupported value: "c": supported values: "a", "b"',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
      'spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"',
      'spec.labels.k: Invalid value: "integer": spec.labels.k in body must be of type string: "integer"',
    ]);
    expect(validate(schema, { spec: { name: '', replicas: -1 } }).map((c) => c.field)).toEqual([
      'spec.name',
      'spec.replicas',
    ]);
    expect(validate(schema, { spec: { name: 'ok', replicas: 2, port: 'http' } })).toEqual([]);
  });

  it('refuses a CRD schema that is not structural', () => {
    expect(schemaProblems(null, 'p')).toEqual([
      expect.objectContaining({ field: 'p', message: 'Required value: schemas are required' }),
    ]);
    expect(
      schemaProblems({ properties: { spec: { properties: {} } } }, 'p').map((c) => c.field),
    ).toEqual(['p.type', 'p.properties[spec].type']);
    expect(schemaProblems(schema as never, 'p')).toEqual([]);
  });
});

describe('the fence template renderer', () => {
  it("replaces the identity and the layout's rule, and unescapes Terraform escapes", () => {
    expect(
      renderFenceText("a: '${job_identity}' b: $${x} c: %%{y}", 'job@p.iam.gserviceaccount.com'),
    ).toBe("a: 'job@p.iam.gserviceaccount.com' b: ${x} c: %{y}");
    expect(
      renderFenceText('${namespace_rule} / ${namespace_words}', 'job', { template: 'clusters' }),
    ).toBe("request.namespace == 'clusters' / clusters");
  });

  it('refuses identities that would change the CEL expression, and unknown template features', () => {
    expect(() => renderFenceText('${job_identity}', "x' || true || '")).toThrow(
      /Invalid job identity/,
    );
    expect(() => renderFenceText('${other}', 'job')).toThrow(/variable "other" is not given/);
    expect(() => renderFenceText('${replace(x, "a", "b")}', 'job')).toThrow(
      /unsupported interpolation/,
    );
  });
});
