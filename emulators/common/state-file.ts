import fs from 'node:fs';
import path from 'node:path';

/**
 * A JSON state file written atomically (temp file, fsync, rename), so a crash or SIGTERM leaves
 * either the old or the new state, never half of one. Writes are synchronous: when a mutating call
 * has been answered, its state is on disk.
 */
export class StateFile<T> {
  private readonly file: string;

  constructor(directory: string, name = 'state.json') {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    this.file = path.join(directory, name);
  }

  read(): T | undefined {
    if (!fs.existsSync(this.file)) return undefined;
    return JSON.parse(fs.readFileSync(this.file, 'utf8')) as T;
  }

  write(value: T): void {
    const temp = `${this.file}.${process.pid}.tmp`;
    const fd = fs.openSync(temp, 'w', 0o600);
    try {
      fs.writeSync(fd, JSON.stringify(value));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, this.file);
  }
}
