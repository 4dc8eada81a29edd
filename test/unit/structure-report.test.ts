// scripts/structure-report.cjs prints the numbers issue 30 holds the code to (README size, files
// over 250 lines, functions over 80, import cycles, each function folder's root files) and, with
// --check, fails lint when one is exceeded. Here it runs on small fixture trees: it must find exactly
// what exceeds a limit, nothing at the limit, and let a clean tree pass.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  formatReport,
  limitsExceeded,
  physicalLines,
  structureReport,
} from '../../scripts/structure-report.cjs';

const SCRIPT = path.resolve(__dirname, '../../scripts/structure-report.cjs');

const workDirs: string[] = [];
afterAll(() => workDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** A repository tree in a temporary folder: `files` maps each relative path to its content. */
function fixtureTree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'structure-report-'));
  workDirs.push(root);
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  }
  return root;
}

/** A file of exactly `count` physical lines (ending with a line break, as files do). */
const fileOfLines = (count: number) =>
  Array.from({ length: count }, (_, i) => `export const line${i + 1} = ${i + 1};\n`).join('');

/** A function of exactly `count` physical lines: its signature, `count - 2` body lines, `}`. */
const functionOfLines = (signature: string, count: number) =>
  [
    `${signature} {`,
    '  let total = 0;',
    ...Array.from({ length: count - 5 }, () => ''),
    '  // Blank lines and comments count: they are lines a reader scrolls through.',
    '  return total;',
    '}',
  ].join('\n') + '\n';

/** Limits held everywhere: files at 250 lines, functions at 80, imports in one direction. */
const cleanTree = {
  'README.md': '# fixture\n',
  'functions/adapter/index.ts': "import { a } from '../../shared/a';\nexport const value = a;\n",
  'functions/adapter/Dockerfile': 'FROM scratch\n',
  'functions/adapter/decision/at-the-limit.ts': fileOfLines(250),
  'functions/reporter/index.ts': functionOfLines('export const atTheLimit = (): number =>', 80),
  'shared/a.ts': "import type { B } from './b';\nexport const a = 1;\nexport type A = B;\n",
  'shared/b.ts': 'export type B = number;\n',
  'emulators/stack/start-stack.ts': functionOfLines('export function startStack(): number', 80),
  // Outside the product: neither files nor functions are held to the limits there.
  'emulators/console/page.ts': fileOfLines(400),
};

/** The clean tree plus one of each: a long file, a long function, a cycle via a type-only import. */
const treeOverTheLimits = {
  ...cleanTree,
  'functions/pull-secret-job/run/long-file.ts': fileOfLines(251),
  'functions/reporter/long-function.ts':
    '// A function over the limit, its line counted from its first token.\n' +
    functionOfLines('export function tooLong(): number', 81),
  // a.ts imports b only for a type; b.ts imports a's value: still a cycle.
  'shared/b.ts': "import { a } from './a';\nexport type B = number;\nexport const b = a;\n",
};

describe('scripts/structure-report.cjs', () => {
  it('counts physical lines as ESLint does: a final line break starts no line', () => {
    expect(physicalLines('a\nb\n')).toBe(2);
    expect(physicalLines('a\nb')).toBe(2);
    expect(physicalLines('a\n\n')).toBe(2);
    expect(physicalLines('')).toBe(1);
  });

  it('finds exactly the file over 250 lines, the function over 80 and the cycle', () => {
    const report = structureReport(fixtureTree(treeOverTheLimits));
    expect(report.longFiles).toEqual([
      { file: 'functions/pull-secret-job/run/long-file.ts', lines: 251 },
    ]);
    expect(report.longFunctions).toEqual([
      { file: 'functions/reporter/long-function.ts', line: 2, name: 'tooLong', lines: 81 },
    ]);
    expect(report.cycles).toEqual([['shared/a.ts', 'shared/b.ts']]);
    expect(limitsExceeded(report)).toEqual([
      '1 product files over 250 lines',
      '1 functions over 80 lines',
      '1 import cycles (limit 0)',
    ]);
  });

  it('holds a file on the whole-concepts list to its own limit, and only that file', () => {
    const report = structureReport(
      fixtureTree({
        ...cleanTree,
        'scripts/whole-concepts.cjs':
          "module.exports = { 'functions/pull-secret-job/run/whole.ts': { lines: 300, why: 'one concept' } };\n",
        'functions/pull-secret-job/run/whole.ts': fileOfLines(300),
        'functions/pull-secret-job/run/other.ts': fileOfLines(251),
      }),
    );
    expect(report.longFiles).toEqual([
      { file: 'functions/pull-secret-job/run/other.ts', lines: 251 },
    ]);
    const over = structureReport(
      fixtureTree({
        ...cleanTree,
        'scripts/whole-concepts.cjs':
          "module.exports = { 'functions/pull-secret-job/run/whole.ts': { lines: 300, why: 'one concept' } };\n",
        'functions/pull-secret-job/run/whole.ts': fileOfLines(301),
      }),
    );
    expect(over.longFiles).toEqual([
      { file: 'functions/pull-secret-job/run/whole.ts', lines: 301 },
    ]);
  });

  it('lets a clean tree pass, and lists the root files of each function folder', () => {
    const report = structureReport(fixtureTree(cleanTree));
    expect(report).toMatchObject({ longFiles: [], longFunctions: [], cycles: [] });
    expect(report.functionLimitedElsewhere).toEqual(['emulators/stack/start-stack.ts']);
    expect(limitsExceeded(report)).toEqual([]);
    expect(report.functionRootFiles).toEqual([
      { folder: 'functions/adapter', files: ['Dockerfile', 'index.ts'] },
      { folder: 'functions/reporter', files: ['index.ts'] },
    ]);
    expect(formatReport(report)).toContain('functions/adapter/ (2): Dockerfile index.ts');
  });

  it('holds startStack to the function limit and the README to 20 KB', () => {
    const report = structureReport(
      fixtureTree({
        ...cleanTree,
        'README.md': 'x'.repeat(20 * 1024 + 1),
        'emulators/stack/start-stack.ts': functionOfLines(
          'export async function startStack(): Promise<number>',
          81,
        ),
      }),
    );
    expect(report.longFunctions).toEqual([
      { file: 'emulators/stack/start-stack.ts', line: 1, name: 'startStack', lines: 81 },
    ]);
    expect(limitsExceeded(report)).toEqual([
      'README.md is 20481 bytes (limit 20480)',
      '1 functions over 80 lines',
    ]);
  });

  it('names methods and arrow functions by where they live', () => {
    const body = functionOfLines('  send(): number', 81).replace(/\n(?!$)/g, '\n  ');
    const report = structureReport(
      fixtureTree({
        ...cleanTree,
        'shared/client.ts': `export class Client {\n${body}}\n`,
        'shared/handler.ts': functionOfLines('export const handle = (): number =>', 81),
      }),
    );
    expect(report.longFunctions.map(({ file, name }) => `${file} ${name}`)).toEqual([
      'shared/client.ts Client.send',
      'shared/handler.ts handle',
    ]);
  });

  it('with --check, exits 1 naming what exceeds a limit, and 0 with one line on a clean tree', () => {
    const run = (root: string) =>
      spawnSync(process.execPath, [SCRIPT, '--check', root], { encoding: 'utf8' });
    const failing = run(fixtureTree(treeOverTheLimits));
    expect(failing.status).toBe(1);
    expect(failing.stdout).toContain('functions/reporter/long-function.ts:2 tooLong 81');
    expect(failing.stdout).toContain('shared/a.ts ⇄ shared/b.ts');
    expect(failing.stderr).toContain('structure: limits exceeded: 1 product files over 250 lines');

    const passing = run(fixtureTree(cleanTree));
    expect(passing.stderr).toBe('');
    expect(passing.status).toBe(0);
    expect(passing.stdout.trim().split('\n')).toHaveLength(1);
  });
});
