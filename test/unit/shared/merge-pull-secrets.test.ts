import { mergePullSecrets, pullSecretBytes } from '../../../shared/pull-secret/merge';
import { parsePullSecret } from '../../../shared/pull-secret/validate';

const auth = (pair: string) => Buffer.from(pair).toString('base64');
const original = {
  auths: {
    'quay.io': { auth: auth('rh:orig'), email: 'a@b' },
    'registry.redhat.io': { auth: auth('rh:orig2') },
  },
};
const additional = {
  auths: {
    'quay.io': { auth: auth('me:mine') },
    'registry.example.com': { auth: auth('me:private') },
  },
};

describe('merging an additional pull secret (HyperShift global pull secret semantics)', () => {
  it('keeps every registry and lets the additional entry win on the same registry', () => {
    const merged = mergePullSecrets(
      parsePullSecret(JSON.stringify(original)),
      parsePullSecret(JSON.stringify(additional)),
    );
    expect(merged.auths).toEqual({
      'quay.io': { auth: auth('me:mine') },
      'registry.redhat.io': { auth: auth('rh:orig2') },
      'registry.example.com': { auth: auth('me:private') },
    });
  });

  it('keeps the original bytes exactly when there is no additional secret, so removal restores them', () => {
    const text = JSON.stringify(original, null, 2);
    expect(pullSecretBytes(text, parsePullSecret(text), undefined).toString()).toBe(text);
    const merged = pullSecretBytes(
      text,
      parsePullSecret(text),
      parsePullSecret(JSON.stringify(additional)),
    ).toString();
    expect(merged).not.toBe(text);
    expect(() => parsePullSecret(merged)).not.toThrow();
  });

  it('names which of the two secrets is invalid', () => {
    expect(() => parsePullSecret('{"auths":{}}', 'additional pull secret')).toThrow(
      /^The additional pull secret is invalid/,
    );
    expect(() => parsePullSecret('{"auths":{}}', 'pull secret')).toThrow(
      /^The pull secret is invalid/,
    );
  });
});
