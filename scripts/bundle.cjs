#!/usr/bin/env node
// `npm run bundle`: one minified ES module per entry point, with chunks for what it imports lazily,
// what ships and what the tests run:
//   dist-bundle/adapter/index.mjs, dist-bundle/reporter/index.mjs  (Cloud Run functions)
//   dist-bundle/pull-secret-job/main.mjs                           (the Cloud Run Job image)
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
// (shared/logging/no-express-middleware.ts). The plugins below leave out more of what never runs
// (test/integration/packaging/bundle-contents.test.ts checks each).
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
 * `@kubernetes/client-node` as the job loads it (functions/pull-secret-job/kubernetes/kubernetes-client.ts) ->
 * a module re-exporting only the names listed there. A dynamic import keeps every export of the
 * package (the generated client of every API group, 3.5 MB); named re-exports let esbuild drop
 * what the job never uses (1.5 MB left).
 */
const kubernetesClientSubset = {
  name: 'kubernetes-client-subset',
  setup(build) {
    const loader = path.join(root, 'functions/pull-secret-job/kubernetes/kubernetes-client.ts');
    const list = /KUBERNETES_CLIENT_EXPORTS = \[([^\]]*)\]/.exec(fs.readFileSync(loader, 'utf8'));
    const names = list ? [...list[1].matchAll(/'([A-Za-z0-9_]+)'/g)].map((m) => m[1]) : [];
    if (names.length === 0)
      throw new Error(`${loader}: no KUBERNETES_CLIENT_EXPORTS list found for the bundle`);
    build.onResolve({ filter: /^@kubernetes\/client-node$/ }, (args) =>
      args.importer === loader
        ? { path: 'subset', namespace: 'kubernetes-client-subset' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'kubernetes-client-subset' }, () => ({
      contents: `export { ${names.join(', ')} } from '@kubernetes/client-node';`,
      resolveDir: root,
    }));
  },
};

/**
 * `whatwg-url` as node-fetch 2 (under the Kubernetes client) imports it -> Node's own URL.
 * node-fetch uses it only as a fallback, `Url.URL || whatwgUrl.URL`, and Node always has
 * `url.URL`; but importing it loads tr46's Unicode mapping table (283 KiB of source, a large array
 * on the heap) on every Kubernetes run, and tr46's `require('punycode')`, Node's deprecated
 * built-in, which prints DEP0040 on Node 22.
 */
const nodeUrlForNodeFetch = {
  name: 'node-url-for-node-fetch',
  setup(build) {
    build.onResolve({ filter: /^whatwg-url$/ }, (args) =>
      args.importer.includes(`${path.sep}node-fetch${path.sep}`)
        ? { path: 'whatwg-url', namespace: 'node-url-for-node-fetch' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'node-url-for-node-fetch' }, () => ({
      contents: "import { URL } from 'node:url'; export default { URL };",
    }));
  },
};

/**
 * `import ... from 'node:http'` (any built-in, in our code or an ES module library) -> a
 * `require()` of it. Node gives an imported built-in an ES module facade that reads every export
 * once, which runs the built-ins' lazy getters: `http`'s loads all of undici (Node's fetch, for
 * `http.WebSocket`) and `fs`'s loads the streams, about 50 ms of compiling at every start although
 * nothing uses them. `require()` returns the same module object without the facade; the CommonJS
 * libraries in the bundle already load built-ins that way (the banner's `require`).
 */
const builtinsThroughRequire = {
  name: 'builtins-through-require',
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) =>
      builtins.has(args.path) && args.kind === 'import-statement'
        ? { path: args.path, namespace: 'builtin-through-require' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'builtin-through-require' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
    }));
  },
};

/**
 * @google-cloud/tasks' CommonJS clients read their JSON (client config, protos, package.json)
 * through `getJSON(path.join(dirname, ...))`, a path built at run time that esbuild cannot follow:
 * bundled as is, the adapter's first launch fails with "Cannot find module
 * .../cloud_tasks_client_config.json". Each such read becomes a static `require` of the same
 * file, which esbuild bundles; a read of another shape fails the build rather than the launch.
 */
const GET_JSON =
  /\(0, _jsonHelper\.getJSON\)\(_path\["default"\]\.join\(dirname((?:, '[^']+')+)\)\)/g;
const cloudTasksStaticJson = {
  name: 'cloud-tasks-static-json',
  setup(build) {
    build.onLoad(
      { filter: /[\\/]@google-cloud[\\/]tasks[\\/]build[\\/]cjs[\\/].*\.cjs$/ },
      (args) => {
        const source = fs.readFileSync(args.path, 'utf8');
        if (!source.includes('_jsonHelper.getJSON)(')) return undefined;
        const contents = source.replace(GET_JSON, (_, parts) => {
          const relative = path.posix.join(...[...parts.matchAll(/'([^']+)'/g)].map((m) => m[1]));
          return `require(${JSON.stringify(relative.startsWith('.') ? relative : `./${relative}`)})`;
        });
        if (contents.includes('_jsonHelper.getJSON)('))
          throw new Error(`${args.path}: a getJSON call of an unknown shape (scripts/bundle.cjs)`);
        return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
      },
    );
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
    plugins: [
      stdoutOnlyLogging,
      kubernetesClientSubset,
      nodeUrlForNodeFetch,
      builtinsThroughRequire,
      cloudTasksStaticJson,
    ],
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
