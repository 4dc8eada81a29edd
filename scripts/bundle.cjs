#!/usr/bin/env node
// `npm run bundle`: one minified CommonJS file per entry point, what ships and what the tests run:
//   dist-bundle/adapter/index.js, dist-bundle/reporter/index.js   (Cloud Run functions)
//   dist-bundle/pull-secret-job/main.js                           (the Cloud Run Job image)
// plus dist-bundle/<name>/meta.json (esbuild's metafile: what each bundle contains, read by the
// bench's size report). Unused generated API classes, proto JSON and transitive code never load.
//
// What is not bundled, and why:
// - @google-cloud/functions-framework (the functions only): it keeps the registered functions in a
//   module-level Map that Cloud Run's runner (its own copy, main.js) reads; a bundled copy would
//   register into a Map nobody reads. The archive's package.json declares it, nothing else.
// - Node built-ins.
// - Optional modules the libraries require inside try/catch and do without when absent (they are
//   not installed here either, so tests run exactly what ships): ws's native accelerators
//   `bufferutil` and `utf-8-validate` (native addons; ws falls back to JavaScript) and node-fetch's
//   `encoding` (only for non-UTF-8 bodies, which no API we call returns).
// Anything else that stays external fails the build: a dependency resolved at run time from a
// node_modules the archive and the image do not have would work in the tests and break in production.
//
// One substitution: @google-cloud/logging-winston's `redirectToStdout` mode (the one we use) needs
// only the library's LogSync and Entry, but `new Logging()` builds the Cloud Logging API's gRPC
// clients and loads their protos. shared/logging/stdout-only-logging.ts provides a `Logging` that
// serves `logSync` with the library's own LogSync/Entry and refuses the API transport; and its
// Express request-logging middleware (unused; it loads google-auth-library) is left out the same way
// (shared/logging/no-express-middleware.ts).
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');
const { builtinModules } = require('node:module');

const root = path.resolve(__dirname, '..');
// `--out DIR` bundles elsewhere (`npm run package` does, so packaging never rewrites the bundles
// that tests or a running stack are using).
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(root, 'dist-bundle');

const ENTRIES = [
  { name: 'adapter', entry: 'functions/adapter/index.ts', file: 'index', external: true },
  { name: 'reporter', entry: 'functions/reporter/index.ts', file: 'index', external: true },
  { name: 'pull-secret-job', entry: 'functions/pull-secret-job/main.ts', file: 'main' },
];
const FRAMEWORK = '@google-cloud/functions-framework';
const OPTIONAL = new Set(['bufferutil', 'utf-8-validate', 'encoding']);
const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** `@google-cloud/logging` as imported by logging-winston -> the stdout-only substitute. */
const stdoutOnlyLogging = {
  name: 'stdout-only-logging',
  setup(build) {
    const fromWinston = (args) =>
      args.importer.includes(`${path.sep}@google-cloud${path.sep}logging-winston${path.sep}`);
    build.onResolve({ filter: /^@google-cloud\/logging$/ }, (args) =>
      fromWinston(args)
        ? { path: path.join(root, 'shared/logging/stdout-only-logging.ts') }
        : undefined,
    );
    build.onResolve({ filter: /^\.\/middleware\/express$/ }, (args) =>
      fromWinston(args)
        ? { path: path.join(root, 'shared/logging/no-express-middleware.ts') }
        : undefined,
    );
  },
};

/**
 * `punycode` -> the userland package of the same code (node_modules/punycode). tr46 and whatwg-url
 * (under the Kubernetes client's node-fetch) `require('punycode')`, which resolves to Node's
 * deprecated built-in: on Node 22 every job run would print DEP0040 on stderr.
 */
const userlandPunycode = {
  name: 'userland-punycode',
  setup(build) {
    build.onResolve({ filter: /^punycode$/ }, () => ({
      path: require.resolve('punycode/', { paths: [root] }),
    }));
  },
};

async function bundle({ name, entry, file, external }) {
  const dir = path.join(out, name);
  fs.rmSync(dir, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { [file]: entry },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    // ES modules with code splitting: what an entry imports lazily (`await import(...)`) lands in
    // its own chunk, which Node reads and compiles only when the import runs. In one CommonJS file
    // the lazy modules' code would not run, but V8 would still parse all of it at start.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    // The CommonJS libraries inside call require() for Node built-ins and read __dirname.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url); const __filename = import.meta.filename; const __dirname = import.meta.dirname;",
    },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: true,
    // Names stay: error classes are matched by name in places (and stack traces stay readable).
    keepNames: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    // Libraries that ship both read `module` fields first; Node would pick `main` (CommonJS).
    mainFields: ['main', 'module'],
    external: external ? [FRAMEWORK] : [],
    plugins: [stdoutOnlyLogging, userlandPunycode],
  });
  const outputs = Object.values(result.metafile.outputs);
  const stray = outputs
    .flatMap((o) => o.imports)
    .filter(
      (i) =>
        i.external &&
        !builtins.has(i.path) &&
        !OPTIONAL.has(i.path) &&
        !(external && i.path === FRAMEWORK),
    );
  if (stray.length > 0)
    throw new Error(
      `${name}: unbundled imports ${[...new Set(stray.map((i) => i.path))].join(', ')}; bundle them or copy them explicitly (scripts/bundle.cjs)`,
    );
  // `await import('cjs-package')` in an ES module bundle yields only `default`: named exports would
  // be undefined at run time. Our code imports such libraries through shared/gcp/lazy/ instead.
  const lost = Object.entries(result.metafile.inputs)
    .filter(([file]) => !file.includes('node_modules'))
    .flatMap(([file, input]) =>
      input.imports
        .filter((i) => i.kind === 'dynamic-import' && i.path.includes('node_modules'))
        .filter((i) => {
          const chunk = outputs.find((o) => o.entryPoint === i.path);
          return chunk && chunk.exports.length === 1 && chunk.exports[0] === 'default';
        })
        .map((i) => `${file} imports ${i.original} (CommonJS) dynamically`),
    );
  if (lost.length > 0)
    throw new Error(
      `${name}: ${lost.join('; ')}: re-export it from a module of ours (shared/gcp/lazy/)`,
    );
  fs.writeFileSync(path.join(dir, 'meta.json'), JSON.stringify(result.metafile));
  return { name, bytes: fs.statSync(path.join(dir, `${file}.mjs`)).size };
}

async function main() {
  const started = Date.now();
  const built = await Promise.all(ENTRIES.map(bundle));
  if (!process.argv.includes('--quiet'))
    console.log(
      `bundled ${built.map((b) => `${b.name} ${(b.bytes / 1024).toFixed(0)} KiB`).join(', ')} in ${Date.now() - started} ms`,
    );
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
