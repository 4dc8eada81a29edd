import type { SecretRedactor } from './secret-redactor';

type WriteCallback = (error?: Error | null) => void;

/**
 * Routes every write to `stream` through the redactor, so text that bypasses the logger (a usage
 * or configuration message, a library warning, the last-resort failure line, the text log format)
 * is redacted exactly like the log lines. Registered secrets are looked up at write time, so
 * secrets registered after this call are hidden too. Returns a function that restores the stream.
 *
 * Writes are redacted one chunk at a time: every writer in the job writes whole lines, so a secret
 * cannot straddle two chunks.
 */
export function redactStream(stream: NodeJS.WritableStream, redactor: SecretRedactor): () => void {
  const original = stream.write;
  const write = original.bind(stream) as (
    chunk: string | Uint8Array,
    encoding?: BufferEncoding,
    callback?: WriteCallback,
  ) => boolean;
  const redacting = (
    chunk: string | Uint8Array,
    encodingOrCallback?: BufferEncoding | WriteCallback,
    callback?: WriteCallback,
  ): boolean => {
    const [encoding, done] =
      typeof encodingOrCallback === 'function'
        ? [undefined, encodingOrCallback]
        : [encodingOrCallback, callback];
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const redacted = redactor.redactText(text);
    // Unchanged chunks are written as given: bytes stay bytes, the caller's encoding stays.
    if (redacted === text) return write(chunk, encoding, done);
    return write(redacted, 'utf8', done);
  };
  stream.write = redacting as typeof stream.write;
  return () => {
    stream.write = original;
  };
}
