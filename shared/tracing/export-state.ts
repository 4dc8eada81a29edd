// Whether this process registered an exporting tracer provider. A module of its own so that
// traceparent.ts can ask without importing start.ts (which knows how to load the SDK).
let exporting = false;

/** True once startTracing registered the SDK provider (until its shutdown). */
export function isExporting(): boolean {
  return exporting;
}

/** Called by startTracing and the handle's shutdown only. */
export function setExporting(value: boolean): void {
  exporting = value;
}
