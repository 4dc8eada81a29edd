import { evaluatePolicy } from '../../../emulators/kube-apiserver/admission/evaluate';
import {
  matchesResource,
  matchesResources,
  matchesRule,
  matchesSelector,
  type AdmissionAttributes,
} from '../../../emulators/kube-apiserver/admission/match';
import { renderFencePolicy } from '../../../emulators/pullsecret/management-cluster/fence-policy';

/** The pure decisions of the emulator's ValidatingAdmissionPolicy support. */
const attrs = (overrides: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  group: '',
  version: 'v1',
  resource: 'secrets',
  subresource: '',
  kind: 'Secret',
  name: 's',
  namespace: 'ns',
  object: { metadata: { name: 's', labels: { app: 'a' } }, type: 'Opaque' },
  oldObject: null,
  username: 'someone',
  dryRun: false,
  namespaceObject: { metadata: { name: 'ns', labels: { env: 'dev' } } },
  ...overrides,
});
const rule = (overrides: Record<string, unknown> = {}) => ({
  apiGroups: [''],
  apiVersions: ['v1'],
  operations: ['CREATE', 'UPDATE'],
  resources: ['secrets'],
  ...overrides,
});

describe('admission rule matching', () => {
  it.each([
    ['secrets', 'secrets', '', true],
    ['secrets', 'secrets', 'status', false],
    ['secrets/status', 'secrets', 'status', true],
    ['secrets/*', 'secrets', 'status', true],
    // as k8s.io/apiserver's rule matcher: `/*` matches any subresource, the empty one included
    ['secrets/*', 'secrets', '', true],
    ['*', 'configmaps', '', true],
    ['*', 'configmaps', 'status', false],
    ['*/*', 'configmaps', 'status', true],
    ['*/status', 'hostedclusters', 'status', true],
    ['configmaps', 'secrets', '', false],
  ])('resources %s against %s/%s: %s', (pattern, resource, sub, expected) => {
    expect(matchesResource(pattern, resource, sub)).toBe(expected);
  });

  it('matches group, version, operation, scope and resource names', () => {
    expect(matchesRule(rule(), attrs())).toBe(true);
    expect(matchesRule(rule(), attrs({ operation: 'DELETE' }))).toBe(false);
    expect(matchesRule(rule({ operations: ['*'] }), attrs({ operation: 'DELETE' }))).toBe(true);
    expect(matchesRule(rule({ apiGroups: ['apps'] }), attrs())).toBe(false);
    expect(matchesRule(rule({ apiVersions: ['*'] }), attrs({ version: 'v2' }))).toBe(true);
    expect(matchesRule(rule({ scope: 'Cluster' }), attrs())).toBe(false);
    expect(matchesRule(rule({ scope: 'Namespaced' }), attrs())).toBe(true);
    expect(matchesRule(rule({ resourceNames: ['other'] }), attrs())).toBe(false);
  });

  it('evaluates label selectors (matchLabels and every operator)', () => {
    const labels = { app: 'a', tier: 'gold' };
    expect(matchesSelector({}, labels)).toBe(true);
    expect(matchesSelector({ matchLabels: { app: 'a' } }, labels)).toBe(true);
    expect(matchesSelector({ matchLabels: { app: 'b' } }, labels)).toBe(false);
    const expr = (operator: string, values?: string[]) => ({
      matchExpressions: [{ key: 'tier', operator, ...(values ? { values } : {}) }],
    });
    expect(matchesSelector(expr('In', ['gold', 'silver']), labels)).toBe(true);
    expect(matchesSelector(expr('NotIn', ['gold']), labels)).toBe(false);
    expect(matchesSelector(expr('Exists'), labels)).toBe(true);
    expect(matchesSelector(expr('DoesNotExist'), labels)).toBe(false);
    expect(matchesSelector(expr('Near'), labels)).toBe(false);
  });

  it('matchConstraints: exclusions, namespace selector, object selector on the new or old object', () => {
    const match = { resourceRules: [rule({ operations: ['*'] })] };
    expect(matchesResources(match, attrs(), true)).toBe(true);
    expect(matchesResources({ ...match, excludeResourceRules: [rule()] }, attrs(), true)).toBe(
      false,
    );
    expect(
      matchesResources(
        { ...match, namespaceSelector: { matchLabels: { env: 'prod' } } },
        attrs(),
        true,
      ),
    ).toBe(false);
    const deleting = attrs({
      operation: 'DELETE',
      object: null,
      oldObject: { metadata: { labels: { app: 'a' } } },
    });
    expect(
      matchesResources({ ...match, objectSelector: { matchLabels: { app: 'a' } } }, deleting, true),
    ).toBe(true);
    // On DELETE there is no new object, so a DoesNotExist selector looks only at the old one.
    const none = {
      ...match,
      objectSelector: { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] },
    };
    expect(matchesResources(none, deleting, true)).toBe(false);
    // A binding's matchResources without rules does not narrow; a policy's must have rules.
    expect(matchesResources({}, attrs(), false)).toBe(true);
    expect(matchesResources({}, attrs(), true)).toBe(false);
  });
});

describe('the fence policy, evaluated', () => {
  const JOB = 'pullsecret-job@local-project.iam.gserviceaccount.com';
  const policy = renderFencePolicy(JOB)[0] as Parameters<typeof evaluatePolicy>[0];
  const secret = (type: string, labels?: Record<string, string>) => ({
    metadata: { name: 'c1-pull-secret', ...(labels ? { labels } : {}) },
    type,
  });
  const OURS = { 'managed-by': 'hyperfleet', adapter: 'pullsecret', 'cluster-id': 'c1' };
  const managed = secret('kubernetes.io/dockerconfigjson', OURS);
  // The pull secret of cluster c1 is c1-pull-secret in clusters-c1 (the fence's place rule).
  const job = (overrides: Partial<AdmissionAttributes>) =>
    attrs({ username: JOB, name: 'c1-pull-secret', namespace: 'clusters-c1', ...overrides });
  const stamped = (generation: string) => ({
    ...managed,
    metadata: { ...managed.metadata, annotations: { 'hyperfleet.io/generation': generation } },
  });

  it.each([
    ['create a managed pull secret', job({ object: managed }), true],
    ['update its own', job({ operation: 'UPDATE', object: managed, oldObject: managed }), true],
    ['delete its own', job({ operation: 'DELETE', object: null, oldObject: managed }), true],
    ['create an Opaque Secret', job({ object: secret('Opaque', OURS) }), false],
    [
      'create without the adapter label',
      job({
        object: secret('kubernetes.io/dockerconfigjson', {
          'managed-by': 'hyperfleet',
          'cluster-id': 'c1',
        }),
      }),
      false,
    ],
    ['create it in another namespace', job({ namespace: 'kube-system', object: managed }), false],
    ['create it under another name', job({ name: 'other', object: managed }), false],
    [
      "relabel another cluster's as its own",
      job({
        operation: 'UPDATE',
        object: managed,
        oldObject: secret('kubernetes.io/dockerconfigjson', { ...OURS, 'cluster-id': 'c2' }),
      }),
      false,
    ],
    [
      'raise the generation stamp',
      job({ operation: 'UPDATE', object: stamped('3'), oldObject: stamped('2') }),
      true,
    ],
    [
      'overwrite a stamp that orders nothing (not a positive integer, as the job reads it)',
      job({ operation: 'UPDATE', object: stamped('3'), oldObject: stamped('abc') }),
      true,
    ],
    [
      'overwrite a zero-padded stamp (the job reads it as none)',
      job({ operation: 'UPDATE', object: stamped('3'), oldObject: stamped('05') }),
      true,
    ],
    [
      'lower the generation stamp',
      job({ operation: 'UPDATE', object: stamped('2'), oldObject: stamped('3') }),
      false,
    ],
    [
      'delete an Opaque Secret labelled as ours',
      job({ operation: 'DELETE', object: null, oldObject: secret('Opaque', OURS) }),
      false,
    ],
    ['create without the label', job({ object: secret('kubernetes.io/dockerconfigjson') }), false],
    [
      'create with another managed-by',
      job({ object: secret('kubernetes.io/dockerconfigjson', { 'managed-by': 'me' }) }),
      false,
    ],
    [
      'take over a foreign Secret',
      job({
        operation: 'UPDATE',
        object: managed,
        oldObject: secret('kubernetes.io/dockerconfigjson'),
      }),
      false,
    ],
    [
      'delete a foreign Secret',
      job({ operation: 'DELETE', object: null, oldObject: secret('Opaque') }),
      false,
    ],
    [
      'remove the label from its own',
      job({
        operation: 'UPDATE',
        object: secret('kubernetes.io/dockerconfigjson', {}),
        oldObject: managed,
      }),
      false,
    ],
  ])('the job may %s: %s', (_what, request, allowed) => {
    const verdict = evaluatePolicy(policy, request);
    expect(verdict !== 'skip' && verdict.allowed).toBe(allowed);
  });

  it('does not apply to other identities', () => {
    expect(
      evaluatePolicy(policy, attrs({ username: 'emulator-admin', object: secret('Opaque') })),
    ).toBe('skip');
  });
});
