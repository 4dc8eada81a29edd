import type { IncomingMessage, ServerResponse } from 'node:http';

/** The request body was not acceptable JSON. */
export class BodyError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** Reads a request body as text, refusing more than `limit` bytes. */
export async function readBody(req: IncomingMessage, limit = 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw new BodyError(`request body larger than ${limit} bytes`, 413);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads and parses a JSON body; an empty body is `undefined`. */
export async function readJson(req: IncomingMessage, limit?: number): Promise<unknown> {
  const text = await readBody(req, limit);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BodyError('request body is not valid JSON');
  }
}

/** A body that is JSON text already (e.g. cached by an emulator), sent as it is. */
export class JsonText {
  constructor(readonly text: string) {}

  /** The body as a value, for callers that keep what was answered. */
  value(): unknown {
    return JSON.parse(this.text) as unknown;
  }
}

/** Writes a JSON answer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  contentType = 'application/json',
): void {
  const text =
    body === undefined ? '' : body instanceof JsonText ? body.text : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
