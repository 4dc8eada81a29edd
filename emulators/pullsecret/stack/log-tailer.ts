import fs from 'node:fs';
import path from 'node:path';
import { RESULT_LINE_KEY } from '../../../shared/job-result';

/** A parsed JSON log line with the file it came from. */
export interface TailedLine {
  readonly source: string;
  readonly json: Record<string, unknown>;
}

/**
 * When a line was logged, in ms: Cloud Logging's `timestamp` ({seconds, nanos} or ISO), else the
 * job result's `finished_at`; undefined when the line says nothing.
 */
export function loggedAtMs(json: Record<string, unknown>): number | undefined {
  const timestamp = json.timestamp;
  if (typeof timestamp === 'string') return Date.parse(timestamp);
  if (timestamp && typeof timestamp === 'object') {
    const { seconds, nanos } = timestamp as { seconds?: unknown; nanos?: unknown };
    if (typeof seconds === 'number')
      return seconds * 1000 + (typeof nanos === 'number' ? nanos / 1e6 : 0);
  }
  const result = json[RESULT_LINE_KEY] as { finished_at?: unknown } | undefined;
  const finishedAt = typeof result?.finished_at === 'string' ? result.finished_at : undefined;
  return finishedAt ? Date.parse(finishedAt) : undefined;
}

/**
 * Follows JSON-lines log files (and every file that appears in watched directories), returning
 * the lines appended since the last poll. Partial lines wait for the next poll.
 */
export class LogTailer {
  private readonly offsets = new Map<string, number>();
  private readonly partial = new Map<string, string>();
  private readonly lastLoggedAt = new Map<string, number>();

  constructor(
    private readonly files: readonly string[],
    private readonly directories: readonly string[] = [],
  ) {}

  /**
   * Lines since the last poll, across files in the order they were logged: within one poll the
   * job may log its write after the reporter logged the report it caused, in another file. A
   * line without a time keeps the time of the line before it in its file.
   */
  poll(): TailedLine[] {
    const lines: (TailedLine & { at: number })[] = [];
    const candidates = [
      ...this.files,
      ...this.directories.flatMap((dir) =>
        fs.existsSync(dir)
          ? fs
              .readdirSync(dir)
              .filter((f) => f.endsWith('.log'))
              .map((f) => path.join(dir, f))
          : [],
      ),
    ];
    for (const file of candidates) {
      let size: number;
      try {
        size = fs.statSync(file).size;
      } catch {
        continue;
      }
      const offset = this.offsets.get(file) ?? 0;
      if (size <= offset) continue;
      const fd = fs.openSync(file, 'r');
      const buffer = Buffer.alloc(size - offset);
      fs.readSync(fd, buffer, 0, buffer.length, offset);
      fs.closeSync(fd);
      this.offsets.set(file, size);
      const text = (this.partial.get(file) ?? '') + buffer.toString('utf8');
      const parts = text.split('\n');
      this.partial.set(file, parts.pop() ?? '');
      let at = this.lastLoggedAt.get(file) ?? 0;
      for (const line of parts) {
        if (!line.startsWith('{')) continue;
        try {
          const json = JSON.parse(line) as Record<string, unknown>;
          at = loggedAtMs(json) ?? at;
          lines.push({ source: file, json, at });
        } catch {
          // Not a JSON log line (a library's plain output): not part of the timeline.
        }
      }
      this.lastLoggedAt.set(file, at);
    }
    return lines.sort((a, b) => a.at - b.at).map(({ source, json }) => ({ source, json }));
  }
}
