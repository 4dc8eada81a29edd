import { SecretRedactor } from '../../../shared/logging/secret-redactor';

describe('SecretRedactor', () => {
  const auth = Buffer.from('robot:very-secret-token').toString('base64');
  const pullSecret = JSON.stringify({ auths: { 'quay.io': { auth } } });

  it('removes the pull secret, its base64, each auth and each password', () => {
    const redactor = new SecretRedactor();
    redactor.registerPullSecret(pullSecret);
    const leaked = `body=${pullSecret} b64=${Buffer.from(pullSecret).toString('base64')} auth=${auth} pw=very-secret-token pair=robot:very-secret-token`;
    const clean = redactor.redactText(leaked);
    expect(clean).not.toContain(auth);
    expect(clean).not.toContain('very-secret-token');
    expect(clean).toContain('[REDACTED]');
  });

  it('redacts nested values and error messages without touching other text', () => {
    const redactor = new SecretRedactor();
    redactor.register('bearer-token-123456');
    const out = redactor.redact({
      a: ['x bearer-token-123456'],
      b: { c: new Error('bad bearer-token-123456') },
      n: 3,
    });
    expect(out).toEqual({ a: ['x [REDACTED]'], b: { c: 'bad [REDACTED]' }, n: 3 });
    expect(redactor.redactText('nothing here')).toBe('nothing here');
  });

  it('ignores strings too short to be secrets', () => {
    const redactor = new SecretRedactor();
    redactor.register('abc');
    expect(redactor.redactText('abc abc')).toBe('abc abc');
  });
});
