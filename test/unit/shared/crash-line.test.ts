import { crashLine } from '../../../shared/logging/crash-handlers';
import { redactCredentialShapes } from '../../../shared/logging/credential-shapes';
import { SecretRedactor } from '../../../shared/logging/secret-redactor';
import { canaryPullSecret, leaks } from '../../helpers/canary';

describe('redactCredentialShapes (secrets nobody registered)', () => {
  const canary = canaryPullSecret('shapes');
  it.each<[string, string]>([
    ['a dockerconfigjson', canary.text],
    ['a dockerconfigjson quoted in a JSON string', JSON.stringify({ body: canary.text })],
    ['quoted twice', JSON.stringify(JSON.stringify({ body: canary.text }))],
    [
      'a dockerconfigjson in base64 (a Secret manifest)',
      Buffer.from(canary.text).toString('base64'),
    ],
    [
      'a password field with an escaped quote',
      JSON.stringify({ auths: { r: { username: 'u', password: `a"b${canary.forms[4]}` } } }),
    ],
  ])('%s', (_name, text) => {
    const out = redactCredentialShapes(text);
    expect(out).toContain('[REDACTED]');
    expect(leaks(out, [canary])).toEqual([]);
  });

  it.each([
    ['Authorization: Bearer abc.def-ghi', 'Authorization: Bearer [REDACTED]'],
    ['authorization=Basic%20dXNlcjpwYXNz', 'authorization=Basic%20[REDACTED]'],
    ['token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl end', 'token [REDACTED] end'],
    ['access ya29.a0AfB_abc-123 end', 'access [REDACTED] end'],
    ['GET https://robot:s3cret@quay.io/v2/', 'GET https://robot:[REDACTED]@quay.io/v2/'],
    ['nothing secret: {"auths":{}} at 10:30', 'nothing secret: {"auths":{}} at 10:30'],
  ])('%s', (text, expected) => {
    expect(redactCredentialShapes(text)).toBe(expected);
  });
});

describe('crashLine', () => {
  const options = (redactor = new SecretRedactor()) => ({
    component: 'pullsecret-test',
    redactor,
    exitCode: 1,
  });

  it('one JSON line with the stack, the properties and the cause, every secret removed', () => {
    const canary = canaryPullSecret('crash-line');
    const token = 'registered-token-7f3a9c';
    const redactor = new SecretRedactor();
    redactor.register(token);
    const error = Object.assign(
      new Error(`boom ${token}`, { cause: new Error(`inner ${canary.text}`) }),
      {
        body: Buffer.from(canary.text),
        request: { headers: { authorization: `Bearer ${token}` } },
      },
    );
    const line = JSON.parse(crashLine('uncaught exception', error, options(redactor))) as {
      severity: string;
      message: string;
      component: string;
    };
    expect(line.severity).toBe('CRITICAL');
    expect(line.component).toBe('pullsecret-test');
    expect(line.message).toMatch(
      /^pullsecret-test crashed \(uncaught exception\): Error: boom \[REDACTED\]\n\s+at /,
    );
    expect(line.message).toContain('[cause]: Error: inner');
    expect(line.message).toContain('body:');
    expect(line.message).not.toContain(token);
    expect(leaks(line.message, [canary])).toEqual([]);
  });

  it('a rejection with a value that is not an Error, bytes included', () => {
    const canary = canaryPullSecret('crash-value');
    const line = crashLine(
      'unhandled rejection',
      { response: { data: Buffer.from(canary.text) } },
      options(),
    );
    expect(line).toContain('crashed (unhandled rejection)');
    expect(leaks(line, [canary])).toEqual([]);
  });
});
