import type * as k8s from '@kubernetes/client-node';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import { failureOf } from '../../helpers/kubernetes';
import { apisFor, request } from './kube-clients';

/**
 * ValidatingAdmissionPolicy support in the emulator, beyond the fence: policies are validated on
 * create (CEL must compile, 422 with the field path), messageExpression, the default reason
 * (Invalid, 422), failurePolicy on a CEL error, Warn bindings, selectors, and policy updates.
 */
const NS = 'clusters-vap';

const policy = (
  name: string,
  spec: Partial<k8s.V1ValidatingAdmissionPolicySpec>,
): k8s.V1ValidatingAdmissionPolicy => ({
  metadata: { name },
  spec: {
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: [''],
          apiVersions: ['v1'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['configmaps', 'secrets'],
        },
      ],
    },
    validations: [{ expression: 'true' }],
    ...spec,
  },
});
const binding = (
  name: string,
  policyName: string,
  actions = ['Deny'],
  spec: Partial<k8s.V1ValidatingAdmissionPolicyBindingSpec> = {},
) => ({
  metadata: { name },
  spec: { policyName, validationActions: actions, ...spec },
});

describe('ValidatingAdmissionPolicies in the Kubernetes emulator', () => {
  let emulator: KubeApiServerEmulator;
  let admin: ReturnType<typeof apisFor>;
  const secret = (name: string, labels: Record<string, string> = {}) =>
    admin.core.createNamespacedSecret({
      namespace: NS,
      body: { metadata: { name, labels }, stringData: { a: 'b' } },
    });

  beforeEach(async () => {
    emulator = await startKubeApiServerEmulator({ namespaces: [NS] });
    admin = apisFor(emulator);
  });
  afterEach(() => emulator.stop());

  it('refuses a policy whose expression does not compile: 422 naming spec.validations[0].expression', async () => {
    const failure = await failureOf(
      admin.admission.createValidatingAdmissionPolicy({
        body: policy('broken', { validations: [{ expression: 'object.metadata.name ==' }] }),
      }),
    );
    expect(failure).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(failure.message).toMatch(
      /^ValidatingAdmissionPolicy\.admissionregistration\.k8s\.io "broken" is invalid: spec\.validations\[0\]\.expression: Invalid value: "object\.metadata\.name ==": compilation failed: ERROR: /,
    );
    expect(failure.details?.causes?.[0]?.field).toBe('spec.validations[0].expression');
    expect(
      await failureOf(admin.admission.readValidatingAdmissionPolicy({ name: 'broken' })),
    ).toMatchObject({ code: 404 });
  });

  it('refuses a policy without rules or validations and a binding without actions, naming each field', async () => {
    const response = await request(
      emulator,
      'POST',
      '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies',
      {
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicy',
          metadata: { name: 'empty' },
          spec: { failurePolicy: 'Sometimes' },
        },
      },
    );
    expect(response.status).toBe(422);
    const fields = (
      response.body as { details: { causes: { field: string }[] } }
    ).details.causes.map((c) => c.field);
    expect(fields).toEqual(['spec.failurePolicy', 'spec.matchConstraints', 'spec.validations']);
    const bindingFailure = await failureOf(
      admin.admission.createValidatingAdmissionPolicyBinding({
        body: binding('b', 'p', ['Block']),
      }),
    );
    expect(bindingFailure.message).toBe(
      'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "b" is invalid: spec.validationActions[0]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"',
    );
  });

  it('denies with messageExpression and the default reason Invalid (422), as the real server does', async () => {
    await admin.admission.createValidatingAdmissionPolicy({
      body: policy('team-label', {
        validations: [
          {
            expression: "has(object.metadata.labels) && 'team' in object.metadata.labels",
            messageExpression: "'Secret ' + object.metadata.name + ' needs a team label'",
          },
        ],
      }),
    });
    await admin.admission.createValidatingAdmissionPolicyBinding({
      body: binding('team-label-binding', 'team-label'),
    });
    const failure = await failureOf(secret('no-team'));
    expect(failure).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: `secrets "no-team" is forbidden: ValidatingAdmissionPolicy 'team-label' with binding 'team-label-binding' denied request: Secret no-team needs a team label`,
    });
    await secret('with-team', { team: 'a' });
  });

  it('without a message, the denial names the failed expression', async () => {
    await admin.admission.createValidatingAdmissionPolicy({
      body: policy('no-message', { validations: [{ expression: "object.type != 'Opaque'" }] }),
    });
    await admin.admission.createValidatingAdmissionPolicyBinding({
      body: binding('no-message', 'no-message'),
    });
    expect((await failureOf(secret('s'))).message).toBe(
      `secrets "s" is forbidden: ValidatingAdmissionPolicy 'no-message' with binding 'no-message' denied request: failed expression: object.type != 'Opaque'`,
    );
  });

  it('a CEL error follows failurePolicy: Fail denies, Ignore allows', async () => {
    await admin.admission.createValidatingAdmissionPolicy({
      body: policy('erring', {
        failurePolicy: 'Fail',
        validations: [{ expression: "object.metadata.labels['missing'] == 'x'" }],
      }),
    });
    await admin.admission.createValidatingAdmissionPolicyBinding({
      body: binding('erring', 'erring'),
    });
    const failure = await failureOf(secret('e1'));
    expect(failure.code).toBe(422);
    expect(failure.message).toContain(
      `ValidatingAdmissionPolicy 'erring' with binding 'erring' denied request: expression 'object.metadata.labels['missing'] == 'x'' resulted in error: `,
    );
    const stored = await admin.admission.readValidatingAdmissionPolicy({ name: 'erring' });
    await admin.admission.replaceValidatingAdmissionPolicy({
      name: 'erring',
      body: { ...stored, spec: { ...stored.spec!, failurePolicy: 'Ignore' } },
    });
    await secret('e2');
  });

  it('Warn bindings add a Warning header and allow; objectSelector and namespaceSelector narrow the match', async () => {
    await admin.admission.createValidatingAdmissionPolicy({
      body: policy('never', { validations: [{ expression: 'false', message: 'nope' }] }),
    });
    await admin.admission.createValidatingAdmissionPolicyBinding({
      body: binding('warn-only', 'never', ['Warn']),
    });
    const created = await request(emulator, 'POST', `/api/v1/namespaces/${NS}/secrets`, {
      body: { metadata: { name: 'warned' }, stringData: { a: 'b' } },
    });
    expect(created.status).toBe(201);
    expect(created.headers.warning).toBe(
      `299 - "Validation failed for ValidatingAdmissionPolicy 'never' with binding 'warn-only': nope"`,
    );
    await admin.admission.createValidatingAdmissionPolicyBinding({
      body: binding('deny-labelled', 'never', ['Deny'], {
        matchResources: {
          objectSelector: { matchLabels: { fenced: 'yes' } },
          namespaceSelector: {
            matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }],
          },
        },
      }),
    });
    await secret('not-fenced');
    expect(await failureOf(secret('fenced', { fenced: 'yes' }))).toMatchObject({ code: 422 });
  });

  it('policies do not match what their rules exclude: other resources, other operations', async () => {
    await admin.admission.createValidatingAdmissionPolicy({
      body: policy('never', { validations: [{ expression: 'false' }] }),
    });
    await admin.admission.createValidatingAdmissionPolicyBinding({
      body: binding('never', 'never'),
    });
    await admin.core.createNamespace({ body: { metadata: { name: 'other' } } });
    expect(await failureOf(secret('x'))).toMatchObject({ code: 422 });
    // DELETE is not in the rule's operations; the policy objects themselves are never matched.
    await admin.admission.deleteValidatingAdmissionPolicyBinding({ name: 'never' });
    await secret('x');
    await admin.core.deleteNamespacedSecret({ name: 'x', namespace: NS });
  });
});
