import { PassThrough } from 'node:stream';
import { redactStream } from '../../../shared/logging/redacting-output';
import { SecretRedactor } from '../../../shared/logging/secret-redactor';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('redactStream', () => {
  it('redacts strings and buffers, with secrets registered after it was installed', () => {
    const redactor = new SecretRedactor();
    const { stream, text } = capture();
    redactStream(stream, redactor);
    redactor.register('hunter2-secret');
    stream.write('first hunter2-secret line\n');
    stream.write(Buffer.from('second hunter2-secret line\n'));
    expect(text()).toBe('first [REDACTED] line\nsecond [REDACTED] line\n');
  });

  it('passes callbacks through and restores the original write', () => {
    const redactor = new SecretRedactor();
    redactor.register('hunter2-secret');
    const { stream, text } = capture();
    const restore = redactStream(stream, redactor);
    const done = jest.fn();
    stream.write('a hunter2-secret\n', done);
    stream.write('plain\n', 'utf8', done);
    restore();
    stream.write('after hunter2-secret\n');
    expect(text()).toBe('a [REDACTED]\nplain\nafter hunter2-secret\n');
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      expect(done).toHaveBeenCalledTimes(2),
    );
  });
});
