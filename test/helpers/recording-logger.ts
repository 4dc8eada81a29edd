import type { LogFields, Logger } from '../../shared/logging/logger';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
}

/** A Logger that keeps its lines, for asserting what a handler logged. */
export class RecordingLogger implements Logger {
  constructor(
    readonly lines: LogLine[] = [],
    private readonly context: Record<string, unknown> = {},
  ) {}

  debug(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'debug', message, fields: { ...this.context, ...fields } });
  }
  info(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'info', message, fields: { ...this.context, ...fields } });
  }
  warn(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'warn', message, fields: { ...this.context, ...fields } });
  }
  error(message: string, fields?: LogFields): void {
    this.lines.push({ level: 'error', message, fields: { ...this.context, ...fields } });
  }
  child(fields: LogFields): Logger {
    return new RecordingLogger(this.lines, { ...this.context, ...fields });
  }

  /** Everything logged, as one string, for secret scans. */
  text(): string {
    return JSON.stringify(this.lines);
  }
}
