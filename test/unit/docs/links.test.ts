// Every link in README.md, SECURITY.md, docs/ and the Terraform modules' READMEs reaches a file of
// this repository and, with an anchor, a heading of that page; every repository path a page names
// exists; and no page sends the reader outside the repository (a sibling folder, a file the
// repository does not have).
import fs from 'node:fs';
import path from 'node:path';
import { anchorOf, docPages, headings, readDoc, withoutCodeBlocks } from '../../helpers/docs';
import { ROOT } from '../../helpers/run-process';

interface Link {
  readonly page: string;
  readonly target: string;
}

const EXTERNAL = /^(https?:|mailto:)/;

function linksOf(page: string): Link[] {
  const text = withoutCodeBlocks(readDoc(page)).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !EXTERNAL.test(target))
    .map((target) => ({ page, target }));
}

/** Why a link does not resolve, or undefined when it does. */
function brokenBecause({ page, target }: Link): string | undefined {
  const [file = '', anchor] = target.split('#');
  const resolved =
    file === '' ? path.join(ROOT, page) : path.resolve(ROOT, path.dirname(page), file);
  if (path.relative(ROOT, resolved).startsWith('..')) return 'points outside the repository';
  if (!fs.existsSync(resolved)) return 'no such file';
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md')) return 'an anchor into a file that is not a page';
  const anchors = headings(fs.readFileSync(resolved, 'utf8')).map(anchorOf);
  return anchors.includes(anchor) ? undefined : `no heading with anchor #${anchor}`;
}

/** The Terraform modules' READMEs: generated tables, hand-written text that links into docs/. */
function moduleReadmes(): string[] {
  return fs
    .readdirSync(path.join(ROOT, 'terraform/modules'), { recursive: true, encoding: 'utf8' })
    .filter((file) => path.basename(file) === 'README.md' && !file.includes('.terraform'))
    .map((file) => path.join('terraform/modules', file));
}

describe('documentation links', () => {
  const links = [...docPages(), ...moduleReadmes()].flatMap(linksOf);

  it('finds the pages and their links', () => {
    expect(docPages()).toEqual(
      expect.arrayContaining(['README.md', 'SECURITY.md', 'docs/architecture.md']),
    );
    expect(links.length).toBeGreaterThan(50);
  });

  it('each reaches a file of the repository and, with an anchor, a heading of that page', () => {
    const broken = links
      .map((link) => ({ ...link, because: brokenBecause(link) }))
      .filter((link) => link.because !== undefined);
    expect(broken).toEqual([]);
  });

  it('no page points outside the repository', () => {
    const outside = docPages().flatMap((page) =>
      [...readDoc(page).matchAll(/\.\.\/shared\b|ARCHITECTURE\.md|\]\(\.\.\/\.\.\/\.\./g)].map(
        (m) => ({ page, text: m[0] }),
      ),
    );
    expect(outside).toEqual([]);
  });

  it('README links every page of docs/', () => {
    const readmeTargets = new Set(linksOf('README.md').map(({ target }) => target.split('#')[0]));
    const pages = docPages().filter((page) => page.startsWith('docs/'));
    expect(pages.filter((page) => !readmeTargets.has(page))).toEqual([]);
  });

  it('every repository path a page names in backticks exists (tests, code, modules)', () => {
    const REPOSITORY_PATH =
      /`((?:functions|shared|emulators|terraform|test|bench|scripts|docs)\/[^`\s*{}<>$]*)`/g;
    // Written by a run, never committed.
    const generated = (file: string) => file.startsWith('bench/results/');
    const missing = docPages().flatMap((page) =>
      [...readDoc(page).matchAll(REPOSITORY_PATH)]
        .map((m) => m[1]!)
        .filter((file) => !generated(file) && !fs.existsSync(path.join(ROOT, file)))
        .map((file) => ({ page, file })),
    );
    expect(missing).toEqual([]);
  });
});
