// The layering of the code, checked on every `npm run lint` (and so in CI): which folder may
// import which. Type-only imports count too (tsPreCompilationDeps): a type import still ties one
// folder's meaning to another's, and that tie is what this guards, not the bundled output.
//
//   npx depcruise functions shared emulators --config .dependency-cruiser.cjs
//
// Emulator rooms (the folders directly under emulators/) come in two kinds. A generic room
// emulates one outside service (Secret Manager, Cloud Run, Kubernetes, the HyperFleet API, ...)
// and knows nothing of this product: it imports only emulators/common/ and itself, no function's
// code, and from shared/ only the few pure helpers listed in SHARED_FOR_EMULATORS (each with why
// client and emulator must agree on it). The product room holds what is specific to this project
// (the stack that wires the rooms together, the console, the simulated adapters, the HostedCluster
// CRD, the fence wiring, the demo) and may import any room. Moving a room from one kind to the
// other, or allowing one import between rooms, is a change to the two lists below.

/** Rooms under emulators/ that hold this product's knowledge; they may import any room. */
const PRODUCT_ROOMS = ['pullsecret'];

/**
 * The shared/ files a generic room (or emulators/common/) may import, each a contract both sides
 * must compute the same way, not product knowledge.
 */
const SHARED_FOR_EMULATORS = [
  // Every command line of the repository writes durations one way (a pure parser).
  '^shared/config/durations\\.ts$',
  // Secret Manager's data_crc32c: client and server must compute the same checksum.
  '^shared/gcp/crc32c\\.ts$',
  // The argv[0] the Cloud Run emulator gives each task: how the job tells it from real Cloud Run.
  '^shared/gcp/cloud-run-emulator-mark\\.ts$',
];

/**
 * Imports between rooms that a generic room is still allowed, each a reviewed exception:
 * `{ from: room, to: [rooms it may import besides emulators/common/ and itself] }`.
 */
const ROOM_IMPORT_EXCEPTIONS = [];

const anyOf = (names) => names.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
const room = (name) => `^emulators/${name}/`;
const roomsWithExceptions = ROOM_IMPORT_EXCEPTIONS.map((exception) => exception.from);

/** The rooms' own rule, and one per reviewed exception (a generic room's other allowed rooms). */
const emulatorRoomRules = [
  {
    name: 'emulator-room-imports-only-common',
    comment:
      'A generic emulator room imports only emulators/common/ and itself: it emulates one outside ' +
      'service and knows nothing of this product. Move product knowledge to a product room ' +
      '(PRODUCT_ROOMS in .dependency-cruiser.cjs), or shared code to emulators/common/.',
    severity: 'error',
    from: {
      path: '^emulators/([^/]+)/',
      pathNot: `^emulators/(${anyOf(['common', ...PRODUCT_ROOMS, ...roomsWithExceptions])})/`,
    },
    to: {
      path: '^(emulators|functions|shared)/',
      pathNot: ['^emulators/common/', '^emulators/$1/', ...SHARED_FOR_EMULATORS],
    },
  },
  {
    name: 'emulator-common-imports-only-itself',
    comment:
      'emulators/common/ is what every room builds on: it imports no room and no product code.',
    severity: 'error',
    from: { path: '^emulators/common/' },
    to: {
      path: '^(emulators|functions|shared)/',
      pathNot: ['^emulators/common/', ...SHARED_FOR_EMULATORS],
    },
  },
  ...ROOM_IMPORT_EXCEPTIONS.map((exception) => ({
    name: `emulator-room-imports-only-common (${exception.from})`,
    comment: `emulators/${exception.from}/ imports only emulators/common/, itself and its reviewed exceptions.`,
    severity: 'error',
    from: { path: room(exception.from) },
    to: {
      path: '^(emulators|functions|shared)/',
      pathNot: [...[exception.from, 'common', ...exception.to].map(room), ...SHARED_FOR_EMULATORS],
    },
  })),
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No import cycles, type-only imports included: a cycle means two files each need the ' +
        'other, so neither can be read (or changed) alone. Move what both need into a third file.',
      severity: 'error',
      from: { path: '^(functions|shared|emulators)/' },
      to: { circular: true },
    },
    {
      name: 'no-cross-function-import',
      comment:
        'A function folder (functions/adapter, functions/reporter, functions/pull-secret-job) is ' +
        "deployed on its own and never imports another function's folder: what two functions " +
        'share lives in shared/.',
      severity: 'error',
      from: { path: '^functions/([^/]+)/' },
      to: { path: '^functions/', pathNot: '^functions/$1/' },
    },
    {
      name: 'shared-imports-no-function-or-emulator',
      comment: 'shared/ is below the functions and the emulators: it imports neither.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(functions|emulators)/' },
    },
    {
      name: 'product-imports-no-emulator-or-test',
      comment:
        'Product code (functions/, shared/) runs in Google Cloud: it never imports the emulators, ' +
        'the tests or the bench, which are not deployed.',
      severity: 'error',
      from: { path: '^(functions|shared)/' },
      to: { path: '^(emulators|test|bench)/' },
    },
    {
      name: 'product-imports-no-dev-dependency',
      comment:
        'Product code (functions/, shared/) imports only dependencies, never devDependencies: ' +
        'the deployed package installs no devDependencies. Type-only imports are erased and allowed.',
      severity: 'error',
      from: { path: '^(functions|shared)/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    ...emulatorRoomRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|dist-bundle|coverage|build|\\.local)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    progress: { type: 'none' },
  },
};
