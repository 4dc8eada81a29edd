/** Waits `ms` milliseconds: the one timer behind every retry and settle wait (injectable where tested). */
export const sleep = (ms: number): Promise<void> =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));
