#!/usr/bin/env node
// `npm run package`: builds the Cloud Run functions' source archives for Terraform,
// build/package/adapter.zip and build/package/reporter.zip, from the bundles (scripts/bundle.cjs).
// Each holds three files:
//   index.mjs          the function's minified bundle (all our code and its libraries), and
//   chunk-*.mjs        the parts it imports lazily (Cloud Run and Secret Manager clients)
//   package.json       main: index.mjs; the one dependency: @google-cloud/functions-framework, which
//                      the nodejs22 buildpack runs the function with (it must be the runner's copy:
//                      see scripts/bundle.cjs)
//   package-lock.json  that dependency's subtree of the project's lock file, so the build installs
//                      exactly the versions the tests ran (`npm ci`)
// The archives are reproducible: entries sorted, fixed timestamps and modes, no extra fields, so the
// same source gives the same bytes and Terraform (which names the object after the archive's hash)
// redeploys a function only when it changed. `--out DIR` writes elsewhere (tests).
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const outArg = process.argv.indexOf('--out');
const out =
  outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(root, 'build', 'package');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
const FRAMEWORK = '@google-cloud/functions-framework';

/** The lock file entries `name` needs, resolved from the root as Node and npm resolve them. */
function lockSubtree(name) {
  const entries = {};
  const visit = (from, dep) => {
    // node_modules/a/node_modules/b first, then up the tree, as Node's resolution does.
    let dir = from;
    for (;;) {
      const key = `${dir ? `${dir}/` : ''}node_modules/${dep}`;
      if (lock.packages[key]) {
        if (!entries[key]) {
          entries[key] = lock.packages[key];
          for (const child of Object.keys(lock.packages[key].dependencies ?? {})) visit(key, child);
        }
        return;
      }
      if (!dir) throw new Error(`package-lock.json has no entry for ${dep} (needed by ${from})`);
      const up = dir.lastIndexOf('/node_modules/');
      dir = up < 0 ? '' : dir.slice(0, up);
    }
  };
  visit('', name);
  return Object.fromEntries(
    Object.keys(entries)
      .sort()
      .map((key) => [key, entries[key]]),
  );
}

// Zip with python3's zipfile (on every machine this project supports); every field that could vary
// between builds is fixed: 1980-01-01 timestamps, mode 0644, Unix attributes, sorted names.
const ZIP = `
import sys, zipfile
src, dest = sys.argv[1], sys.argv[2]
names = sorted(sys.argv[3:])
with zipfile.ZipFile(dest, 'w') as z:
    for name in names:
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.create_system = 3
        info.external_attr = 0o100644 << 16
        with open(f"{src}/{name}", "rb") as f:
            z.writestr(info, f.read(), compresslevel=9)
`;

fs.rmSync(out, { recursive: true, force: true });
// Bundled afresh from the source, into the output directory (dist-bundle/ may be in use).
const bundles = path.join(out, 'bundles');
execFileSync(
  process.execPath,
  [path.join(root, 'scripts', 'bundle.cjs'), '--quiet', '--out', bundles],
  { stdio: 'inherit' },
);
const version = lock.packages[`node_modules/${FRAMEWORK}`].version;
for (const fn of ['adapter', 'reporter']) {
  const dir = path.join(out, fn);
  fs.mkdirSync(dir, { recursive: true });
  const files = fs
    .readdirSync(path.join(root, 'dist-bundle', fn))
    .filter((f) => f.endsWith('.mjs'));
  for (const file of files)
    fs.copyFileSync(path.join(root, 'dist-bundle', fn, file), path.join(dir, file));
  const manifest = {
    name: `pullsecret-${fn}`,
    version: pkg.version,
    private: true,
    description: `${pkg.description} (${fn} function, bundled)`,
    main: 'index.mjs',
    engines: { node: '>=22 <23' },
    dependencies: { [FRAMEWORK]: version },
  };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const subLock = {
    name: manifest.name,
    version: manifest.version,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': {
        name: manifest.name,
        version: manifest.version,
        dependencies: manifest.dependencies,
        engines: manifest.engines,
      },
      ...lockSubtree(FRAMEWORK),
    },
  };
  fs.writeFileSync(path.join(dir, 'package-lock.json'), `${JSON.stringify(subLock, null, 2)}\n`);
  const zip = path.join(out, `${fn}.zip`);
  execFileSync('python3', ['-c', ZIP, dir, zip, ...files, 'package.json', 'package-lock.json']);
  const bytes = fs.readFileSync(zip);
  console.log(
    `packaged ${path.relative(root, zip)} (${(bytes.length / 1024).toFixed(0)} KiB, sha256 ${crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16)})`,
  );
}
