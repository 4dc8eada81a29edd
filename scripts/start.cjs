#!/usr/bin/env node
// `npm start`: installs dependencies if needed, builds, then runs the local stack in the foreground
// (dist/emulators/pullsecret/stack/main.js). Signals are passed on, so Ctrl-C and SIGTERM stop everything.
const { spawnSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (args) => {
  const result = spawnSync(npm, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

// A second `npm start` says so at once, before installing or building (main.js checks again).
const argv = process.argv.slice(2);
const workDirFlag = argv.findIndex((a) => a === '--work-dir' || a.startsWith('--work-dir='));
const workDir =
  workDirFlag < 0
    ? path.join(root, '.local')
    : path.resolve(argv[workDirFlag].split('=').slice(1).join('=') || argv[workDirFlag + 1] || '');
const stateFile = path.join(workDir, 'stack.json');
try {
  const { pid } = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  if (Number.isInteger(pid) && pid !== process.pid) {
    process.kill(pid, 0);
    console.error(
      `npm start: a local stack is already running (pid ${pid}); its endpoints are in ${path.relative(process.cwd(), stateFile) || stateFile}. Stop it with Ctrl-C (or kill ${pid}) first.`,
    );
    process.exit(1);
  }
} catch {
  // No state file, not JSON, or its process is gone: nothing is running (main.js cleans up).
}

if (!fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
  console.log('Installing dependencies (npm ci)…');
  run(['ci', '--no-audit', '--no-fund']);
}
run(['run', '--silent', 'build']);

const child = spawn(
  process.execPath,
  [path.join(root, 'dist/emulators/pullsecret/stack/main.js'), ...process.argv.slice(2)],
  { cwd: process.cwd(), stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
