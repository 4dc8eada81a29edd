import { translateKubeError } from '../../../functions/pull-secret-job/kubernetes/kubernetes-cluster-secrets';
import { AdapterError } from '../../../shared/errors';

/** An error as @kubernetes/client-node throws it: the HTTP code and the Status body as text. */
const apiException = (code: number, status: Record<string, unknown>) =>
  Object.assign(new Error(`HTTP-Code: ${code}`), { code, body: JSON.stringify(status) });

const call = { verb: 'create', namespace: 'clusters-a', name: 'a-pull-secret', identityHint: 'x' };

/** NamespaceLifecycle's refusal, as the API server sends it. */
const terminating = {
  kind: 'Status',
  status: 'Failure',
  reason: 'Forbidden',
  code: 403,
  message:
    'secrets "a-pull-secret" is forbidden: unable to create new content in namespace clusters-a because it is being terminated',
  details: {
    name: 'a-pull-secret',
    kind: 'secrets',
    causes: [
      {
        reason: 'NamespaceTerminating',
        message: 'namespace clusters-a is being terminated',
        field: 'metadata.namespace',
      },
    ],
  },
};

/** RBAC's refusal: the only 403 that is about rights. */
const rbac = {
  kind: 'Status',
  status: 'Failure',
  reason: 'Forbidden',
  code: 403,
  message:
    'secrets is forbidden: User "job" cannot create resource "secrets" in API group "" in the namespace "clusters-a"',
  details: { kind: 'secrets' },
};

describe('how the job reads a refused Kubernetes call', () => {
  const translated = (error: unknown) => {
    const failure = translateKubeError(error, call);
    if (!(failure instanceof AdapterError)) throw new Error('expected an AdapterError');
    return failure;
  };

  it('a create refused because the namespace is Terminating is transient, and asks for no grant', () => {
    const failure = translated(apiException(403, terminating));
    expect(failure).toMatchObject({ reason: 'NamespaceTerminating', kind: 'transient' });
    expect(failure.message).toContain('namespace "clusters-a" is being deleted');
    expect(failure.message).toContain('No permission is missing');
    expect(failure.message).toContain('retried');
    expect(failure.message).not.toMatch(/grant/i);
  });

  it('is read by its cause (the machine-readable part), never by the message text', () => {
    const withoutCause = { ...terminating, details: { name: 'a-pull-secret', kind: 'secrets' } };
    expect(translated(apiException(403, withoutCause))).toMatchObject({
      reason: 'PermissionDenied',
      kind: 'permanent',
    });
  });

  it('an RBAC refusal stays PermissionDenied, with the grant to give', () => {
    const failure = translated(apiException(403, rbac));
    expect(failure).toMatchObject({ reason: 'PermissionDenied', kind: 'permanent' });
    expect(failure.message).toContain('Grant that identity the "create" verb');
  });

  it('a Status body already parsed (an object) is read the same way', () => {
    const parsed = Object.assign(new Error('HTTP-Code: 403'), { code: 403, body: terminating });
    expect(translated(parsed).reason).toBe('NamespaceTerminating');
  });
});
