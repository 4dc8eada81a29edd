/** A google.protobuf.Timestamp as the Google clients decode it (seconds may be a Long or string). */
type Timestamp = { seconds?: unknown; nanos?: unknown } | null | undefined;

/** RFC 3339 text of a decoded protobuf Timestamp, or undefined when absent. */
export function timestampToIso(value: unknown): string | undefined {
  const t = value as Timestamp;
  if (t?.seconds === undefined || t.seconds === null) return undefined;
  const millis = Number(String(t.seconds)) * 1000 + Math.floor(Number(t.nanos ?? 0) / 1e6);
  return Number.isFinite(millis) ? new Date(millis).toISOString() : undefined;
}
