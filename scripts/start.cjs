#!/usr/bin/env node
// `npm start`: installs dependencies if needed, builds, then runs the local stack in the foreground
// (dist/emulators/stack/main.js). Signals are passed on, so Ctrl-C and SIGTERM stop everything.
const { spawnSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (args) => {
  const result = spawnSync(npm, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

if (!fs.existsSync(path.join(root, 'node_modules', '.package-lock.json'))) {
  console.log('Installing dependencies (npm ci)…');
  run(['ci', '--no-audit', '--no-fund']);
}
run(['run', '--silent', 'build']);

const child = spawn(
  process.execPath,
  [path.join(root, 'dist/emulators/stack/main.js'), ...process.argv.slice(2)],
  { cwd: process.cwd(), stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
