// Runs a non-Node program (the Pub/Sub emulator's JVM) under a small Node parent that has the
// parent watchdog: signals are passed on, and the program is stopped when the stack disappears.
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: guard COMMAND [ARGS...]\n');
  process.exit(2);
}
const child = spawn(command, args, { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 143 : 0)));
child.on('error', (error) => {
  process.stderr.write(`guard: cannot start ${command}: ${error.message}\n`);
  process.exit(1);
});
