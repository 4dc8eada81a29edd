// Preloaded (`node --require`) into measured processes: on exit, writes the process's peak RSS
// and CPU time to file descriptor 3, which the benchmark opened as a pipe. Nothing else changes.
import fs from 'node:fs';

process.on('exit', () => {
  const usage = process.resourceUsage();
  try {
    fs.writeSync(
      3,
      JSON.stringify({ maxRssKb: usage.maxRSS, cpuUs: usage.userCPUTime + usage.systemCPUTime }),
    );
  } catch {
    // Not measured (no fd 3): nothing to report.
  }
});
