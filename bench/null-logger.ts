import type { Logger } from '../shared/logging/logger';

/** A logger that drops everything: benchmarks measure the work, not the terminal. */
export const nullLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => nullLogger,
};
