import type { Logger } from './logger';

/** A logger that drops everything: for tools whose output is elsewhere (the stack's timeline, benchmarks). */
export const nullLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => nullLogger,
};
