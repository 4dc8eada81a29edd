/**
 * An OTLP endpoint as a log line may show it: origin and path only. A collector URL may carry
 * credentials in its userinfo (`https://user:key@host`) or query (`?api-key=...`).
 */
export function endpointForLogs(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    return `${url.origin}${url.pathname}`;
  } catch {
    return '(unparsable endpoint)';
  }
}
