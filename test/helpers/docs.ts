// The documentation as the tests read it: README.md (the front page), SECURITY.md and the pages
// under docs/. Tests that check docs against code find a page, a heading or a table here.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './run-process';

/** Every documentation page, as a path relative to the repository root. */
export function docPages(): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => path.join('docs', file));
  return ['README.md', 'SECURITY.md', ...docs.sort()];
}

export function readDoc(page: string): string {
  return fs.readFileSync(path.join(ROOT, page), 'utf8');
}

/** A page's text with its fenced code blocks blanked (a `#` there is a comment, not a heading). */
export function withoutCodeBlocks(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, ''));
}

/** The page's headings as written (without the leading #s). */
export function headings(text: string): string[] {
  return [...withoutCodeBlocks(text).matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.trim());
}

/** The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The pages holding a heading with this title (the code names sections by their title). */
export function pagesWithHeading(title: string): string[] {
  return docPages().filter((page) => headings(readDoc(page)).includes(title));
}

/** The rows of the first table after a line of a page (a heading or a lead-in), as cells. */
export function tableAfter(page: string, line: string): string[][] {
  const text = readDoc(page);
  const start = text.indexOf(`\n${line}\n`);
  if (start < 0) throw new Error(`${page} has no line "${line}"`);
  const lines = text.slice(start + line.length + 2).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const row of lines.slice(first + 2)) {
    if (!row.startsWith('|')) break;
    rows.push(
      row
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}
