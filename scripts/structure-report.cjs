#!/usr/bin/env node
// The numbers that say whether a reader can hold the code, printed from the source:
// - README.md's size (the README guides; the detail lives in docs/),
// - product files (functions/, shared/) over 250 lines,
// - product functions over 80 lines (and the local stack's startStack, held to the same limit),
// - import cycles among functions/, shared/ and emulators/, type-only imports included,
// - the files at the root of each function folder (a root holds the entry points; the rest is in
//   rooms by concern), listed for the reader: there is no number to hold them to.
//
//   node scripts/structure-report.cjs           print the report (npm run structure)
//   node scripts/structure-report.cjs --check   also exit 1 when a limit is exceeded (npm run lint)
//
// Either takes another repository root as argument (the tests run it on a fixture tree).
//
// Lines are physical lines, blank lines and comments included, counted as ESLint's max-lines and
// max-lines-per-function count them (eslint.config.mjs holds the same limits). Cycles are counted
// as strongly connected components of the import graph: files that all reach one another are one
// cycle, however many loops run through them. dependency-cruiser's no-circular rule
// (.dependency-cruiser.cjs) reports each loop; the two agree on whether there is any.
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const LIMITS = { readmeBytes: 20 * 1024, fileLines: 250, functionLines: 80, cycles: 0 };
/** Product code: what is deployed. Files and functions are held to the limits here. */
const PRODUCT_FOLDERS = ['functions', 'shared'];
/** Outside the product, files whose functions are held to the product's function limit too. */
const FUNCTION_LIMITED_ELSEWHERE = /^emulators\/(?:.+\/)?start-stack\.ts$/;
/** Where import cycles are looked for. */
const CYCLE_FOLDERS = ['functions', 'shared', 'emulators'];
const FUNCTIONS_FOLDER = 'functions';

/** Every TypeScript source file under `folder` (relative to `root`), posix paths, sorted. */
function sourceFiles(root, folder) {
  const dir = path.join(root, folder);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((file) => path.posix.join(folder, file.split(path.sep).join('/')))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .filter((file) => fs.statSync(path.join(root, file)).isFile())
    .sort();
}

/** Physical lines as ESLint counts them: a final line break does not start another line. */
function physicalLines(text) {
  const lines = text.split(/\r\n|\r|\n/);
  return lines.length > 1 && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
}

function parse(root, file) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

/** A function's name as a reader would search for it: `decide`, `Client.send`, `<anonymous>`. */
function functionName(node) {
  const own = node.name && ts.isIdentifier(node.name) ? node.name.text : undefined;
  if (ts.isConstructorDeclaration(node)) return `${className(node.parent)}.constructor`;
  if (ts.isClassLike(node.parent) && own) return `${className(node.parent)}.${own}`;
  if (own) return own;
  const parent = node.parent;
  const holder =
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
      ? parent.name
      : undefined;
  return holder && ts.isIdentifier(holder) ? holder.text : '<anonymous>';
}

function className(node) {
  return node.name ? node.name.text : '<class>';
}

const isFunctionLike = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node) ||
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node);

/**
 * Every function in `files` (declarations, methods, constructors, accessors, arrow functions and
 * function expressions, nested ones too) longer than `limit` physical lines, from its first token
 * (leading comments not counted, as ESLint) to its last, sorted by length, longest first.
 */
function longFunctions(root, files, limit = LIMITS.functionLines) {
  const found = [];
  for (const file of files) {
    const source = parse(root, file);
    const lineOf = (position) => source.getLineAndCharacterOfPosition(position).line;
    const visit = (node) => {
      if (isFunctionLike(node) && node.body) {
        const first = lineOf(node.getStart(source));
        const lines = lineOf(node.getEnd()) - first + 1;
        if (lines > limit) found.push({ file, line: first + 1, name: functionName(node), lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found.sort((a, b) => b.lines - a.lines || compare(a.file, b.file) || a.line - b.line);
}

/**
 * The files allowed past the file limit, each holding one concept whole (scripts/whole-concepts.cjs
 * in `root`; none when the tree has no such list).
 */
function wholeConcepts(root) {
  const list = path.join(root, 'scripts', 'whole-concepts.cjs');
  return fs.existsSync(list) ? require(list) : {};
}

/**
 * Every file in `files` longer than its limit (`limit`, or its own in the whole-concepts list),
 * longest first.
 */
function longFiles(root, files, limit = LIMITS.fileLines) {
  const own = wholeConcepts(root);
  return files
    .map((file) => ({ file, lines: physicalLines(fs.readFileSync(path.join(root, file), 'utf8')) }))
    .filter(({ file, lines }) => lines > (own[file]?.lines ?? limit))
    .sort((a, b) => b.lines - a.lines || compare(a.file, b.file));
}

/**
 * The module specifiers a file imports, type-only imports included: import and export ... from
 * declarations, `import x = require()`, require() and import() calls, and `import('...')` types.
 */
function importedSpecifiers(source) {
  const specifiers = [];
  const literal = (node) => (node && ts.isStringLiteralLike(node) ? node.text : undefined);
  const visit = (node) => {
    let specifier;
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node))
      specifier = literal(node.moduleSpecifier);
    else if (ts.isExternalModuleReference(node)) specifier = literal(node.expression);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      specifier = literal(node.argument.literal);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    )
      specifier = literal(node.arguments[0]);
    if (specifier !== undefined) specifiers.push(specifier);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/**
 * The import graph among `files`: for each file, the files of `files` it imports. Only relative
 * specifiers can point into the repository (it has no path aliases); they resolve as TypeScript
 * resolves them (`./x` to x.ts or x/index.ts, `./x.js` to x.ts).
 */
function importGraph(root, files) {
  const known = new Set(files);
  const options = { moduleResolution: ts.ModuleResolutionKind.Node10, resolveJsonModule: true };
  const cache = ts.createModuleResolutionCache(root, (name) => name, options);
  const graph = new Map();
  for (const file of files) {
    const containing = path.join(root, file);
    const targets = new Set();
    for (const specifier of importedSpecifiers(parse(root, file))) {
      if (!specifier.startsWith('.')) continue;
      const { resolvedModule } = ts.resolveModuleName(
        specifier,
        containing,
        options,
        ts.sys,
        cache,
      );
      if (!resolvedModule) continue;
      const target = path.relative(root, resolvedModule.resolvedFileName).split(path.sep).join('/');
      if (known.has(target)) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/**
 * The import cycles of a graph: each strongly connected component of more than one file (or a
 * file that imports itself), its files sorted, the cycles sorted by their first file (Tarjan).
 */
function importCycles(graph) {
  const index = new Map();
  const lowLink = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  let next = 0;
  const connect = (file) => {
    index.set(file, next);
    lowLink.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        lowLink.set(file, Math.min(lowLink.get(file), lowLink.get(target)));
      } else if (onStack.has(target)) {
        lowLink.set(file, Math.min(lowLink.get(file), index.get(target)));
      }
    }
    if (lowLink.get(file) !== index.get(file)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file))
      cycles.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);
  return cycles.sort((a, b) => compare(a[0], b[0]));
}

/** The files (any kind) directly in each function folder, by folder. */
function functionRootFiles(root) {
  const dir = path.join(root, FUNCTIONS_FOLDER);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({
      folder: `${FUNCTIONS_FOLDER}/${name}`,
      files: fs
        .readdirSync(path.join(dir, name), { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name)
        .sort(),
    }));
}

function readmeBytes(root) {
  const readme = path.join(root, 'README.md');
  return fs.existsSync(readme) ? fs.statSync(readme).size : 0;
}

/** Everything the report prints, measured in the repository at `root`. */
function structureReport(root) {
  const product = PRODUCT_FOLDERS.flatMap((folder) => sourceFiles(root, folder));
  const elsewhere = CYCLE_FOLDERS.filter((folder) => !PRODUCT_FOLDERS.includes(folder))
    .flatMap((folder) => sourceFiles(root, folder))
    .filter((file) => FUNCTION_LIMITED_ELSEWHERE.test(file));
  const cycleFiles = CYCLE_FOLDERS.flatMap((folder) => sourceFiles(root, folder));
  return {
    readmeBytes: readmeBytes(root),
    longFiles: longFiles(root, product),
    functionLimitedElsewhere: elsewhere,
    longFunctions: longFunctions(root, [...product, ...elsewhere]),
    cycles: importCycles(importGraph(root, cycleFiles)),
    functionRootFiles: functionRootFiles(root),
  };
}

/** One line per limit the report exceeds; empty when every limit holds. */
function limitsExceeded(report) {
  const exceeded = [];
  if (report.readmeBytes > LIMITS.readmeBytes)
    exceeded.push(`README.md is ${report.readmeBytes} bytes (limit ${LIMITS.readmeBytes})`);
  if (report.longFiles.length > 0)
    exceeded.push(`${report.longFiles.length} product files over ${LIMITS.fileLines} lines`);
  if (report.longFunctions.length > 0)
    exceeded.push(`${report.longFunctions.length} functions over ${LIMITS.functionLines} lines`);
  if (report.cycles.length > LIMITS.cycles)
    exceeded.push(`${report.cycles.length} import cycles (limit ${LIMITS.cycles})`);
  return exceeded;
}

function formatReport(report) {
  const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
  const list = (items) => items.map((item) => `  ${item}\n`).join('');
  const functionScope = ['functions/', 'shared/', ...report.functionLimitedElsewhere].join(', ');
  return [
    `README.md: ${report.readmeBytes} bytes, ${kb(report.readmeBytes)} (limit ${kb(LIMITS.readmeBytes)})\n`,
    `Product files over ${LIMITS.fileLines} lines: ${report.longFiles.length}\n`,
    list(report.longFiles.map(({ file, lines }) => `${file} ${lines}`)),
    `Functions over ${LIMITS.functionLines} lines (${functionScope}): ${report.longFunctions.length}\n`,
    list(report.longFunctions.map((f) => `${f.file}:${f.line} ${f.name} ${f.lines}`)),
    `Import cycles (${CYCLE_FOLDERS.join('/, ')}/, type-only imports included): ${report.cycles.length}\n`,
    list(report.cycles.map((cycle) => cycle.join(' ⇄ '))),
    'Root files of each function folder:\n',
    list(
      report.functionRootFiles.map((f) =>
        [`${f.folder}/ (${f.files.length}):`, ...f.files].join(' '),
      ),
    ),
  ].join('');
}

function summary(report) {
  return (
    `README.md ${report.readmeBytes} bytes, ${report.longFiles.length} files over ` +
    `${LIMITS.fileLines} lines, ${report.longFunctions.length} functions over ` +
    `${LIMITS.functionLines}, ${report.cycles.length} import cycles`
  );
}

function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function main(args) {
  const check = args.includes('--check');
  const rootArg = args.find((arg) => !arg.startsWith('--'));
  const root = path.resolve(rootArg ?? path.join(__dirname, '..'));
  const report = structureReport(root);
  const exceeded = limitsExceeded(report);
  // In lint (--check) a passing report is one line; a failing one shows everything to fix.
  if (check && exceeded.length === 0) {
    process.stdout.write(`structure: every limit holds (${summary(report)})\n`);
    return;
  }
  process.stdout.write(formatReport(report));
  if (check) {
    process.stderr.write(`structure: limits exceeded: ${exceeded.join('; ')}\n`);
    process.exitCode = 1;
  }
}

if (require.main === module) main(process.argv.slice(2));

module.exports = {
  LIMITS,
  physicalLines,
  longFiles,
  longFunctions,
  importedSpecifiers,
  importGraph,
  importCycles,
  functionRootFiles,
  structureReport,
  limitsExceeded,
  formatReport,
};
