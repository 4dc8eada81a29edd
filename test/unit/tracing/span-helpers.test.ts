import { decisionAttributes } from '../../../functions/adapter/decision/decision-attributes';
import { PermanentError } from '../../../shared/errors';
import { isGoogleTelemetryEndpoint } from '../../../shared/tracing/google-auth-headers';
import { errorType } from '../../../shared/tracing/spans';

describe('errorType (what a failed span records instead of the message)', () => {
  it.each([
    [
      new PermanentError('cluster spec has password hunter2', 'PullSecretInvalid'),
      'PullSecretInvalid',
    ],
    [Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'ECONNREFUSED'],
    [Object.assign(new Error('x'), { code: 'has spaces and secrets' }), 'Error'],
    [new TypeError('boom'), 'TypeError'],
    ['a thrown string', 'string'],
  ])('%p -> %s', (error, expected) => {
    expect(errorType(error)).toBe(expected);
  });
});

describe('isGoogleTelemetryEndpoint (when exports carry a Google access token)', () => {
  it.each([
    ['https://telemetry.googleapis.com/v1/traces', true],
    ['http://127.0.0.1:4318/v1/traces', false],
    ['https://telemetry.googleapis.com.example.com/v1/traces', false],
  ])('%s -> %s', (endpoint, expected) => {
    expect(isGoogleTelemetryEndpoint(endpoint)).toBe(expected);
  });
});

describe('decisionAttributes', () => {
  it('names the decision as the logs do, with the reason when there is one', () => {
    expect(
      decisionAttributes({ kind: 'skip', reason: 'up-to-date', message: 'm' } as never),
    ).toEqual({ 'pullsecret.decision': 'up-to-date', 'pullsecret.reason': 'up-to-date' });
    expect(
      decisionAttributes({
        kind: 'report',
        outcome: { kind: 'not-met', precondition: 'dnsAvailable', message: 'm' },
        message: 'm',
      }),
    ).toEqual({ 'pullsecret.decision': 'report-not-met', 'pullsecret.reason': 'dnsAvailable' });
    expect(
      decisionAttributes({
        kind: 'launch',
        operation: 'apply',
        reason: 'new-generation',
        attempt: 1,
        namespace: 'n',
        gcpProjectId: 'p',
        message: 'm',
      }),
    ).toEqual({ 'pullsecret.decision': 'launch-apply', 'pullsecret.reason': 'new-generation' });
  });
});
