import {
  InvalidPullSecretError,
  parsePullSecret,
  MAX_PULL_SECRET_BYTES,
} from '../../../shared/pull-secret/validate';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const valid = JSON.stringify({
  auths: { 'quay.io': { auth: b64('user:secret-pass'), email: 'a@b.c' } },
});

function problemOf(input: string | Buffer): string {
  try {
    parsePullSecret(input);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidPullSecretError);
    expect((error as InvalidPullSecretError).reason).toBe('InvalidPullSecret');
    expect((error as InvalidPullSecretError).kind).toBe('permanent');
    return (error as Error).message;
  }
  throw new Error('expected the pull secret to be rejected');
}

describe('parsePullSecret', () => {
  it('accepts a valid dockerconfigjson and keeps extra fields', () => {
    const parsed = parsePullSecret(valid);
    expect(Object.keys(parsed.auths)).toEqual(['quay.io']);
    expect(parsed.auths['quay.io']?.email).toBe('a@b.c');
  });

  it('accepts URL-style and host:port registries', () => {
    const text = JSON.stringify({
      auths: {
        'https://index.docker.io/v1/': { auth: b64('u:p') },
        'registry.example.com:5000': { auth: b64('u:p') },
        'quay.io/org/repo': { auth: b64('u:p') },
      },
    });
    expect(Object.keys(parsePullSecret(text).auths)).toHaveLength(3);
  });

  // The original Go job's cases, then ours.
  it.each([
    ['{invalid json', /not valid JSON/],
    ['{"registries": {}}', /no "auths" object/],
    ['{"auths": {}}', /"auths" must not be empty/],
    ['{"auths": "string"}', /"auths" must be an object of registries/],
    ['', /it is empty/],
    ['[]', /must be a JSON object/],
    ['null', /must be a JSON object/],
    ['{"auths": {"quay.io": "x"}}', /registry "quay.io" must be an object/],
    ['{"auths": {"quay.io": {}}}', /registry "quay.io" has no "auth" string/],
    ['{"auths": {"quay.io": {"auth": 42}}}', /registry "quay.io" has no "auth" string/],
    ['{"auths": {"quay.io": {"auth": ""}}}', /"auth" is empty/],
    ['{"auths": {"quay.io": {"auth": "%%%%"}}}', /not valid base64/],
    [`{"auths": {"quay.io": {"auth": "${b64('nocolon')}"}}}`, /no colon found/],
    [`{"auths": {"quay.io": {"auth": "${b64(':password')}"}}}`, /the user is empty/],
    [`{"auths": {"": {"auth": "${b64('u:p')}"}}}`, /a registry name is empty/],
    [
      `{"auths": {"régistry.example": {"auth": "${b64('u:p')}"}}}`,
      /not a host name or URL in ASCII/,
    ],
  ])('rejects %s', (input, expected) => {
    expect(problemOf(input)).toMatch(expected);
  });

  it('rejects more than 64 KiB', () => {
    const big = JSON.stringify({
      auths: { 'quay.io': { auth: b64('u:p'), pad: 'x'.repeat(MAX_PULL_SECRET_BYTES) } },
    });
    expect(problemOf(big)).toMatch(/more than the 65536-byte limit/);
  });

  it('names the additional pull secret when it is the invalid one', () => {
    expect(() => parsePullSecret('{}', 'additional pull secret')).toThrow(
      /The additional pull secret is invalid/,
    );
  });

  it('never puts the auth value or the credentials in the message', () => {
    const secretAuth = b64('nocolonbutverysecretvalue');
    const message = problemOf(`{"auths": {"quay.io": {"auth": "${secretAuth}"}}}`);
    expect(message).not.toContain(secretAuth);
    expect(message).not.toContain('verysecretvalue');
  });
});
