/**
 * Waits for an event a test observes (a log line, a counter, a file) rather than sleeping a fixed
 * time: resolves with the probe's first value that is neither undefined nor false, and fails
 * naming what it waited for once `timeoutMs` is over. The bound is generous on purpose (a loaded
 * two-core machine runs two jest workers, each with processes of its own); a test that passes
 * waits only as long as the event takes.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
