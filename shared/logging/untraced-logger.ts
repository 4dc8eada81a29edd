import { ROOT_CONTEXT, context } from '@opentelemetry/api';
import type { LogFields, Logger } from './logger';

/**
 * A logger whose lines belong to no trace. For the exporter's own warnings: they are written from
 * a batch timer or a headers factory, whose async context is whatever event happened to start
 * the timer, so with the caller's context they would land in an unrelated reconcile's trace group.
 */
export function untracedLogger(logger: Logger): Logger {
  const outside =
    (method: 'debug' | 'info' | 'warn' | 'error') => (message: string, fields?: LogFields) =>
      context.with(ROOT_CONTEXT, () => logger[method](message, fields));
  return {
    debug: outside('debug'),
    info: outside('info'),
    warn: outside('warn'),
    error: outside('error'),
    child: (fields) => untracedLogger(logger.child(fields)),
  };
}
