import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LogTailer, loggedAtMs } from '../../../emulators/pullsecret/stack/log-tailer';

const line = (message: string, seconds: number, nanos = 0) =>
  `${JSON.stringify({ timestamp: { seconds, nanos }, message })}\n`;

describe('LogTailer', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tailer-'));
    fs.mkdirSync(path.join(dir, 'jobs'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('returns the lines of one poll in the order they were logged, across files', () => {
    const reporter = path.join(dir, 'reporter.log');
    const job = path.join(dir, 'jobs', 'execution-1.log');
    // The reporter's file is read first, but the job logged its write before the report.
    fs.writeFileSync(reporter, line('status reported', 100, 500_000_000));
    fs.writeFileSync(
      job,
      line('Kubernetes Secret created', 100, 200_000_000) +
        `${JSON.stringify({ pullsecret_job_result: { finished_at: new Date(100_300).toISOString() } })}\n`,
    );
    const tailer = new LogTailer([reporter], [path.join(dir, 'jobs')]);
    expect(tailer.poll().map((l) => l.json.message ?? 'result')).toEqual([
      'Kubernetes Secret created',
      'result',
      'status reported',
    ]);
    expect(tailer.poll()).toEqual([]);
  });

  it('keeps partial lines for the next poll and skips plain output', () => {
    const file = path.join(dir, 'adapter.log');
    fs.writeFileSync(file, 'Serving function...\n' + line('one', 1).slice(0, 10));
    const tailer = new LogTailer([file]);
    expect(tailer.poll()).toEqual([]);
    fs.appendFileSync(file, line('one', 1).slice(10) + line('two', 2));
    expect(tailer.poll().map((l) => l.json.message)).toEqual(['one', 'two']);
  });

  it('reads both timestamp forms', () => {
    expect(loggedAtMs({ timestamp: '1970-01-01T00:00:01.500Z' })).toBe(1500);
    expect(loggedAtMs({ timestamp: { seconds: 2, nanos: 250_000_000 } })).toBe(2250);
    expect(loggedAtMs({ message: 'no time' })).toBeUndefined();
  });
});
