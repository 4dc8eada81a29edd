import fs from 'node:fs';
import path from 'node:path';

/** A parsed JSON log line with the file it came from. */
export interface TailedLine {
  readonly source: string;
  readonly json: Record<string, unknown>;
}

/**
 * Follows JSON-lines log files (and every file that appears in watched directories), returning
 * the lines appended since the last poll. Partial lines wait for the next poll.
 */
export class LogTailer {
  private readonly offsets = new Map<string, number>();
  private readonly partial = new Map<string, string>();

  constructor(
    private readonly files: readonly string[],
    private readonly directories: readonly string[] = [],
  ) {}

  poll(): TailedLine[] {
    const lines: TailedLine[] = [];
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
      for (const line of parts) {
        if (!line.startsWith('{')) continue;
        try {
          lines.push({ source: file, json: JSON.parse(line) as Record<string, unknown> });
        } catch {
          // Not a JSON log line (a library's plain output): not part of the timeline.
        }
      }
    }
    return lines;
  }
}
