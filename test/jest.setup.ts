import fs from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import { stopTracked } from './helpers/tracked-processes';

// No test may leave a process behind, whatever its assertions did.
afterAll(stopTracked);

/**
 * Console output of code under test (functions-framework logging an injected fault's stack trace,
 * a test's measurements) goes to this file, not to the terminal: a passing `npm test` prints only
 * jest's own summary. Each line names the test that printed it.
 */
export const TEST_CONSOLE_LOG = path.resolve(__dirname, '..', '.test-work', 'jest-console.log');
fs.mkdirSync(path.dirname(TEST_CONSOLE_LOG), { recursive: true });
for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
  console[level] = (...args: unknown[]) => {
    const { currentTestName, testPath } = expect.getState();
    const where = currentTestName ?? path.basename(testPath ?? '');
    fs.appendFileSync(
      TEST_CONSOLE_LOG,
      `${new Date().toISOString()} ${level} [${where}] ${format(...args)}\n`,
    );
  };
}
