// docs/architecture.md's code map gives every folder's job in one line, and its walk of one event
// names the files that make each decision. Both must follow the tree: a path that no longer
// exists, or a folder with no line in the map, fails here.
import fs from 'node:fs';
import path from 'node:path';
import { readDoc } from '../../helpers/docs';
import { ROOT } from '../../helpers/run-process';

const PAGE = 'docs/architecture.md';
const TEXT = readDoc(PAGE);
const REPOSITORY_PATH =
  /^(functions|shared|emulators|terraform|test|bench|scripts|docs)\/[\w./-]*$/;

function codeMap(): string {
  const map = /<!-- code-map -->([\s\S]*?)<!-- \/code-map -->/.exec(TEXT)?.[1];
  if (map === undefined) throw new Error(`${PAGE} has no <!-- code-map --> region`);
  return map;
}

/** The folders of the map: the first cell of each row. */
function mappedFolders(): string[] {
  return [...codeMap().matchAll(/^\| `([^`]+)` *\|/gm)].map((m) => m[1]!.replace(/\/$/, ''));
}

/** The folders a reader looks for in the map: each function's and each of its rooms, shared's, emulators'. */
function foldersThatNeedALine(): string[] {
  const children = (dir: string) =>
    fs
      .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${dir}/${entry.name}`);
  const functions = children('functions');
  return [
    ...functions,
    ...functions.flatMap(children),
    ...children('shared'),
    ...children('emulators'),
  ];
}

describe(`${PAGE}`, () => {
  it('code map: every path exists', () => {
    const folders = mappedFolders();
    expect(folders.length).toBeGreaterThan(20);
    expect(folders.filter((folder) => !fs.existsSync(path.join(ROOT, folder)))).toEqual([]);
  });

  it('code map: every folder of functions/, shared/ and emulators/ has its line', () => {
    const mapped = new Set(mappedFolders());
    expect(foldersThatNeedALine().filter((folder) => !mapped.has(folder))).toEqual([]);
  });

  it('every repository path the page names exists', () => {
    const named = [...TEXT.matchAll(/`([^`\s]+)`/g)]
      .map((m) => m[1]!)
      .filter((text) => REPOSITORY_PATH.test(text));
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((file) => !fs.existsSync(path.join(ROOT, file)))).toEqual([]);
  });

  it("the walk of one event: every file it names exists (a bare name, in its step's folder)", () => {
    const walk = /## The walk of one event[^\n]*\n([\s\S]*?)\n## /.exec(TEXT)?.[1] ?? '';
    const steps = walk.split(/^\d+\. /m).slice(1);
    expect(steps.length).toBeGreaterThan(5);
    const missing = steps.flatMap((step) => {
      const names = [...step.matchAll(/`([^`\s]+\.ts)`/g)].map((m) => m[1]!);
      const folders = [
        ...new Set(names.filter((n) => n.includes('/')).map((n) => path.dirname(n))),
      ];
      return names
        .filter((name) => !name.includes('/'))
        .filter((name) => !folders.some((folder) => fs.existsSync(path.join(ROOT, folder, name))));
    });
    expect(missing).toEqual([]);
  });
});
