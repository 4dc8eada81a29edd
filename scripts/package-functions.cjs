#!/usr/bin/env node
// `npm run package`: builds the Cloud Run functions' source archives for Terraform:
// build/package/adapter.zip and build/package/reporter.zip, each with the compiled code (dist/),
// a package.json whose `main` is the function's entry file, the lock file and the production
// dependencies (node_modules, `npm ci --omit=dev`), so what Cloud Build installs is what was tested.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'build', 'package');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const run = (command, args, cwd) => execFileSync(command, args, { cwd, stdio: 'inherit' });

if (!fs.existsSync(path.join(root, 'dist', 'functions')))
  run('npm', ['run', '--silent', 'build'], root);
fs.rmSync(out, { recursive: true, force: true });
for (const fn of ['adapter', 'reporter']) {
  const dir = path.join(out, fn);
  fs.mkdirSync(dir, { recursive: true });
  for (const part of ['functions', 'shared'])
    fs.cpSync(path.join(root, 'dist', part), path.join(dir, 'dist', part), {
      recursive: true,
      filter: (src) => !src.endsWith('.map'),
    });
  const manifest = {
    name: `pullsecret-${fn}`,
    version: pkg.version,
    private: true,
    description: `${pkg.description} (${fn} function)`,
    main: `dist/functions/${fn}/index.js`,
    engines: { node: '>=22 <23' },
    dependencies: pkg.dependencies,
    overrides: pkg.overrides,
  };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.copyFileSync(path.join(root, 'package-lock.json'), path.join(dir, 'package-lock.json'));
  run(
    'npm',
    ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
    dir,
  );
  const zip = path.join(out, `${fn}.zip`);
  // python3's zipfile is on every machine this project supports; no zip binary needed.
  run(
    'python3',
    [
      '-c',
      `import os, sys, zipfile\nroot = sys.argv[1]\nwith zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as z:\n    for base, dirs, files in os.walk(root):\n        dirs.sort()\n        for name in sorted(files):\n            full = os.path.join(base, name)\n            z.write(full, os.path.relpath(full, root))`,
      dir,
      zip,
    ],
    root,
  );
  console.log(
    `packaged ${path.relative(root, zip)} (${(fs.statSync(zip).size / 1024 / 1024).toFixed(1)} MiB)`,
  );
}
