import * as z from 'zod';

// An HTTP header name (RFC 9110 token).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * OTEL_EXPORTER_OTLP_HEADERS / OTEL_EXPORTER_OTLP_TRACES_HEADERS: `key=value,key2=value2` with
 * percent-encoded values (the OTLP exporter spec, W3C Baggage octets). Usually an API key or a
 * bearer token, so a secret: an error says which pair is at fault by position, never its text.
 */
export const otlpHeadersSchema = z.string().transform((text, ctx): Record<string, string> => {
  const headers: Record<string, string> = {};
  const pairs = text.split(',');
  for (const [index, pair] of pairs.entries()) {
    if (pair.trim() === '' && pairs.length > 1) continue;
    const at = pair.indexOf('=');
    const name = at > 0 ? pair.slice(0, at).trim() : '';
    let value: string | undefined;
    try {
      value = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      value = undefined;
    }
    if (!HEADER_NAME.test(name) || value === undefined || /[\r\n]/.test(value)) {
      ctx.addIssue({
        code: 'custom',
        message: `pair ${index + 1} is not name=value (expected comma-separated name=value pairs with percent-encoded values; the value is not shown, it may be a secret)`,
      });
      return z.NEVER;
    }
    headers[name.toLowerCase()] = value;
  }
  return headers;
});
