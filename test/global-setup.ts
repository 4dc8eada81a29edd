// Jest's global setup (jest.config.js): runs once, in the main process, before any test file.
// Tests that need a program besides Node mark themselves with describeWithTool / itWithTool
// (test/helpers/required-tools.ts). Here, once per run, a missing program is said out loud: one
// line per program locally (its tests are skipped), a setup error on CI (CI=true), which must run
// them all.
import fs from 'node:fs';
import path from 'node:path';
import {
  REQUIRED_TOOLS,
  TOOL_GUARDS,
  findOnPath,
  missingOnCiMessage,
  onCi,
  type RequiredTool,
} from './helpers/required-tools';

/** The parts of Jest's configurations read here. */
interface GlobalConfigRead {
  readonly testPathPatterns?: { readonly patterns?: readonly string[] };
}
interface ProjectConfigRead {
  readonly roots: readonly string[];
  readonly testPathIgnorePatterns: readonly string[];
}

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The test files of this run (roots, ignore patterns, the command line's path patterns). */
function filesOfThisRun(global: GlobalConfigRead, project: ProjectConfigRead): string[] {
  const ignored = project.testPathIgnorePatterns.map((pattern) => new RegExp(pattern));
  const wanted = (global.testPathPatterns?.patterns ?? []).map((p) => new RegExp(p, 'i'));
  return project.roots
    .flatMap((root) => (fs.existsSync(root) ? testFiles(root) : []))
    .filter((file) => !ignored.some((pattern) => pattern.test(file)))
    .filter((file) => wanted.length === 0 || wanted.some((pattern) => pattern.test(file)));
}

/** The files among `files` with a test guarded by `tool`. */
function filesNeeding(tool: RequiredTool, files: readonly string[]): string[] {
  const guard = new RegExp(`\\b(${TOOL_GUARDS.join('|')})\\(\\s*'${tool}'`);
  return files.filter((file) => guard.test(fs.readFileSync(file, 'utf8')));
}

export default function globalSetup(global: GlobalConfigRead, project: ProjectConfigRead): void {
  const files = filesOfThisRun(global, project);
  const problems: string[] = [];
  for (const tool of Object.keys(REQUIRED_TOOLS) as RequiredTool[]) {
    if (findOnPath(tool)) continue;
    const needing = filesNeeding(tool, files);
    if (needing.length === 0) continue;
    if (onCi()) problems.push(missingOnCiMessage(tool));
    else
      process.stderr.write(
        `${tool} is not on PATH: skipping the tests that run ${REQUIRED_TOOLS[tool].runs}, in ${needing.length} file(s) (${needing.map((file) => path.relative(process.cwd(), file)).join(', ')}); install ${tool} to run them.\n`,
      );
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
}
