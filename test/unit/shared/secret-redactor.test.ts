import { inspect } from 'node:util';
import { SecretRedactor } from '../../../shared/logging/secret-redactor';
import { canaryPullSecret, leaks } from '../../helpers/canary';

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

  it('redacts a short secret only where it stands on its own', () => {
    const redactor = new SecretRedactor();
    redactor.register('abc');
    redactor.register('');
    expect(redactor.redactText('abc abcd xabc')).toBe('[REDACTED] abcd xabc');
  });
});

// Issue 26, item 7: every form a registered secret can take on its way to a log line, each its own
// case. A canary is registered as the job registers a pull secret; the output must hold no form.
describe('SecretRedactor: every form of a secret', () => {
  const setup = () => {
    const canary = canaryPullSecret('forms');
    const redactor = new SecretRedactor();
    redactor.registerPullSecret(canary.text);
    const password = canary.forms[4]!;
    return { canary, redactor, password };
  };
  const nested = (depth: number, leaf: unknown): unknown => {
    let node = leaf;
    for (let i = 0; i < depth; i++) node = { level: node };
    return node;
  };

  it.each([9, 20, 100])('an object nested %d levels deep', (depth) => {
    const { canary, redactor } = setup();
    const out = redactor.redact(nested(depth, { message: `echo ${canary.text}` }));
    expect(leaks(JSON.stringify(out), [canary])).toEqual([]);
    expect(JSON.stringify(out)).toContain('[REDACTED]');
  });

  it('an object nested 20,000 levels deep (no stack overflow) and a cycle', () => {
    const { canary, redactor } = setup();
    const deep = nested(20_000, canary.text);
    const out = redactor.redact(deep);
    let node: unknown = out;
    for (let i = 0; i < 20_000; i++) node = (node as { level: unknown }).level;
    expect(node).toBe('[REDACTED]');
    const cycle: Record<string, unknown> = { secret: canary.text };
    cycle.self = cycle;
    const copy = redactor.redact(cycle);
    expect(copy.secret).toBe('[REDACTED]');
    expect(copy.self).toBe(copy);
  });

  it('a Buffer and a Uint8Array, on their own or inside an object', () => {
    const { canary, redactor, password } = setup();
    const out = redactor.redact({
      body: Buffer.from(`payload ${canary.text}`),
      bytes: new TextEncoder().encode(`pw=${password}`),
    });
    expect(leaks(JSON.stringify(out), [canary])).toEqual([]);
    expect(leaks(inspect(out), [canary])).toEqual([]);
    expect(Buffer.from(out.body).toString('utf8')).toBe('payload [REDACTED]');
    const alone = redactor.redact(Buffer.from(password));
    expect(leaks(JSON.stringify(alone) + inspect(alone), [canary])).toEqual([]);
  });

  // Each form: how a leak would write the secrets, and how to read them back from the output.
  const base64s = (out: string, encoding: BufferEncoding) =>
    out
      .split(' ')
      .map((part) => Buffer.from(part, encoding).toString('utf8'))
      .join('\n');
  const bytesOf = (numbers: readonly string[], radix: number) =>
    Buffer.from(numbers.map((n) => parseInt(n, radix))).toString('utf8');
  it.each<[string, (secrets: string) => string, (out: string) => string]>([
    [
      'JSON-escaped (a body quoted in a JSON string)',
      (secrets) => JSON.stringify({ body: secrets }),
      (out) => (JSON.parse(out) as { body: string }).body,
    ],
    [
      'JSON-escaped twice (that string logged inside another)',
      (secrets) => JSON.stringify({ line: JSON.stringify({ body: secrets }) }),
      (out) => (JSON.parse((JSON.parse(out) as { line: string }).line) as { body: string }).body,
    ],
    ['URL-encoded', (secrets) => encodeURIComponent(secrets), (out) => decodeURIComponent(out)],
    [
      'base64 of a larger text, at each alignment',
      (secrets) =>
        ['', 'a', 'ab', 'abc']
          .map((prefix) => Buffer.from(`${prefix}=${secrets};`).toString('base64'))
          .join(' '),
      (out) => base64s(out, 'base64'),
    ],
    [
      'base64url of a larger text, at each alignment',
      (secrets) =>
        ['', 'a', 'ab']
          .map((prefix) => Buffer.from(`${prefix}=${secrets};`).toString('base64url'))
          .join(' '),
      (out) => base64s(out, 'base64url'),
    ],
    [
      'hex',
      (secrets) => Buffer.from(`pw:${secrets}`).toString('hex'),
      (out) => bytesOf(out.replace(/[^0-9a-f]/g, '').match(/../g) ?? [], 16),
    ],
    [
      'a Buffer as Node prints it',
      (secrets) => inspect(Buffer.from(secrets.slice(0, 50))),
      (out) => bytesOf(out.match(/\b[0-9a-f]{2}\b/g) ?? [], 16),
    ],
    [
      'a Buffer as JSON.stringify writes it',
      (secrets) => JSON.stringify(Buffer.from(secrets)),
      (out) => bytesOf(out.match(/\d+/g) ?? [], 10),
    ],
  ])('%s', (_name, encode, decode) => {
    const { canary, redactor, password } = setup();
    // A token with characters that escaping changes: quote, backslash, slash, non-ASCII.
    const token = `tok"en\\${password.slice(-8)}/é`;
    redactor.register(token);
    const tokenCanary = { text: token, forms: [token] };
    for (const secrets of [password, token, canary.text]) {
      const written = encode(secrets);
      // The control: read back unredacted, the form holds the secret.
      expect(decode(written)).toContain(secrets.slice(0, 40));
      const out = redactor.redactText(written);
      expect(out).toContain('[REDACTED]');
      expect(leaks(decode(out), [canary, tokenCanary])).toEqual([]);
    }
  });

  it('a short password, wherever it stands on its own, but not inside other words', () => {
    const redactor = new SecretRedactor();
    const auth = Buffer.from('robot:pw1').toString('base64');
    redactor.registerPullSecret(JSON.stringify({ auths: { 'quay.io': { auth } } }));
    expect(redactor.redactText('login robot:pw1 failed; password "pw1"; pw1.')).toBe(
      'login [REDACTED] failed; password "[REDACTED]"; [REDACTED].',
    );
    expect(redactor.redactText('apw12 pw10 upw1')).toBe('apw12 pw10 upw1');
    expect(redactor.redact({ password: 'pw1', other: 'pw1x' })).toEqual({
      password: '[REDACTED]',
      other: 'pw1x',
    });
  });

  it('the password, identity token and registry token fields of a registry entry', () => {
    const redactor = new SecretRedactor();
    redactor.registerPullSecret(
      JSON.stringify({
        auths: {
          a: { username: 'robot', password: 'field-password-1' },
          b: { identitytoken: 'identity-token-2' },
          c: { registrytoken: 'registry-token-3' },
        },
      }),
    );
    expect(redactor.redactText('field-password-1 identity-token-2 registry-token-3')).toBe(
      '[REDACTED] [REDACTED] [REDACTED]',
    );
  });
});
