import { INSPECT_MAX_BYTES } from 'node:buffer';

/** What Go's encoding/json escapes beyond JSON's minimum, and what Python's ensure_ascii does. */
const GO_ESCAPED = /[<>&\u2028\u2029]/g;
const NON_ASCII = /[\u0080-\uffff]/g;

/**
 * Every way a secret can be written on its way to a log line, one entry per form: an error
 * message may quote a request body (JSON-escaped, once per level of quoting), a URL, a manifest
 * (base64, at any offset inside a longer text), or bytes (hex, a Buffer as Node prints or
 * serializes it).
 */
const FORMS: readonly {
  /** What the form is, for the reader. */
  readonly name: string;
  /** Readable text (a short secret in it is redacted where it stands alone), not an encoding. */
  readonly textual: boolean;
  readonly of: (text: string, bytes: Buffer) => string[];
}[] = [
  { name: 'as is', textual: true, of: (text) => [text] },
  {
    name: 'JSON-escaped, up to three levels of quoting',
    textual: true,
    of: (text) => jsonEscapes(text),
  },
  {
    name: 'JSON-escaped as Go writes it (<, > and & as \\uXXXX)',
    textual: true,
    of: (text) => [unicodeEscape(text, GO_ESCAPED)],
  },
  {
    name: 'JSON-escaped in ASCII (Python: non-ASCII as \\uXXXX)',
    textual: true,
    of: (text) => [unicodeEscape(text, NON_ASCII)],
  },
  { name: 'URL-encoded', textual: true, of: (text) => [encodeURIComponent(text)] },
  {
    name: 'base64 and base64url, at each offset in a longer text',
    textual: false,
    of: (_, bytes) => base64Forms(bytes),
  },
  { name: 'hex', textual: false, of: (_, bytes) => [bytes.toString('hex')] },
  {
    name: 'a Buffer as util.inspect prints it',
    textual: false,
    of: (_, bytes) => [inspectedBytes(bytes)],
  },
  {
    name: 'a Buffer as JSON.stringify writes it',
    textual: false,
    of: (_, bytes) => [[...bytes].join(',')],
  },
];

/** The written forms of `secret`, each with whether it is readable text or an encoding of the bytes. */
export function secretForms(
  secret: string,
): { readonly form: string; readonly textual: boolean }[] {
  const bytes = Buffer.from(secret, 'utf8');
  return FORMS.flatMap(({ textual, of }) => of(secret, bytes).map((form) => ({ form, textual })));
}

function jsonEscapes(text: string): string[] {
  const forms: string[] = [];
  let current = text;
  for (let level = 0; level < 3; level++) {
    const escaped = JSON.stringify(current).slice(1, -1);
    if (escaped === current) break;
    forms.push(escaped);
    current = escaped;
  }
  return forms;
}

/** JSON-escaped, with the characters `pattern` matches (UTF-16 code units) as `\uXXXX`. */
function unicodeEscape(text: string, pattern: RegExp): string {
  return JSON.stringify(text)
    .slice(1, -1)
    .replace(pattern, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The base64 of the bytes on their own (padded), and the characters that depend on them alone
 * when they sit at each of the three offsets of a longer base64 text; also in base64url.
 */
function base64Forms(bytes: Buffer): string[] {
  const forms = [bytes.toString('base64')];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    forms.push(
      encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6)),
    );
  }
  return [
    ...forms,
    ...forms.map((form) => form.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')),
  ];
}

/** `<Buffer 63 61 ...>` shows at most INSPECT_MAX_BYTES bytes: the first ones are what a print shows. */
function inspectedBytes(bytes: Buffer): string {
  return [...bytes.subarray(0, INSPECT_MAX_BYTES)]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join(' ');
}
