import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { TracingConfig } from './config';
import { isExporting, setExporting } from './export-state';
import type { StartTracingOptions } from './start-options';

export type { StartTracingOptions } from './start-options';

/** What a component keeps after starting tracing. */
export interface TracingHandle {
  /** Spans are recorded and sent (the SDK is loaded). */
  readonly exporting: boolean;
  /**
   * Sends the spans ended so far, within a bounded time; never throws (a failed export is a
   * warning in the log). Functions call it before answering each event: Cloud Run throttles the
   * CPU once the response is sent, so a background batch might never leave.
   */
  flush(): Promise<void>;
  /** Flushes and stops exporting (the job calls it before exiting). */
  shutdown(): Promise<void>;
}

const NOT_EXPORTING: TracingHandle = {
  exporting: false,
  flush: async () => undefined,
  shutdown: async () => undefined,
};

let contextManagerRegistered = false;

/**
 * Starts tracing for the process. The AsyncLocalStorage context manager is always registered, so
 * the active span follows async work and log lines can name their trace even with export off.
 * Only with export on is the SDK loaded (`await import`, its own bundle chunk): off costs one
 * small module and nothing per event.
 */
export async function startTracing(
  config: TracingConfig,
  opts: StartTracingOptions = {},
): Promise<TracingHandle> {
  if (!contextManagerRegistered) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    contextManagerRegistered = true;
  }
  if (!config.exporting) return NOT_EXPORTING;
  if (isExporting())
    throw new Error('startTracing: an exporting tracer provider is already registered');
  let handle;
  try {
    const { startExporting } = await import('./sdk.js');
    handle = startExporting(config, opts);
  } catch (error) {
    // Tracing must never stop the work it observes: go on without export, say so once.
    opts.logger?.warn('Tracing could not start; spans are not exported', {
      error_type: error instanceof Error ? error.constructor.name : typeof error,
    });
    return NOT_EXPORTING;
  }
  setExporting(true);
  return {
    exporting: true,
    flush: handle.flush,
    shutdown: async () => {
      await handle.shutdown();
      setExporting(false);
    },
  };
}
