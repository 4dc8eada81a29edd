// Error messages, log hints, alert texts and comments send a reader to a documentation page and a
// section by name ("docs/operations.md, \"pull-secret doctor\""). When a page or a heading moves,
// the message must move with it: a fix that points nowhere is worse than none.
import fs from 'node:fs';
import path from 'node:path';
import { headings, readDoc } from '../../helpers/docs';
import { ROOT } from '../../helpers/run-process';

const SCANNED_FOLDERS = ['functions', 'shared', 'emulators', 'terraform', 'scripts'];
const SCANNED_FILES = /\.(ts|tf|tftpl|json|cjs|mjs)$|Dockerfile(\.ubi)?$/;

function sourceFiles(): string[] {
  return SCANNED_FOLDERS.flatMap((folder) =>
    fs
      .readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => SCANNED_FILES.test(file) && !file.includes('.terraform'))
      .map((file) => path.join(folder, file)),
  );
}

/** `docs/page.md, "Heading", "Sub-heading"` (quotes may be escaped inside a string literal). */
const CITATION = /(README\.md|docs\/[\w./-]+\.md)((?:, \\?"[^"\\\n]+\\?")*)/g;

interface Citation {
  readonly file: string;
  readonly page: string;
  readonly sections: string[];
}

function citations(): Citation[] {
  return sourceFiles().flatMap((file) => {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    return [...text.matchAll(CITATION)].map((m) => ({
      file,
      page: m[1]!,
      sections: [...m[2]!.matchAll(/\\?"([^"\\]+)\\?"/g)].map((s) => s[1]!),
    }));
  });
}

describe('documentation cited by the code', () => {
  const all = citations();

  it('finds the citations (the scan itself works)', () => {
    expect(all.length).toBeGreaterThan(20);
    expect(all.some((c) => c.page === 'docs/operations.md' && c.sections.length > 0)).toBe(true);
  });

  it('every cited page exists', () => {
    const missing = all.filter((c) => !fs.existsSync(path.join(ROOT, c.page)));
    expect(missing).toEqual([]);
  });

  // The first name is a heading; a further one may also be a row of that section's table (a
  // troubleshooting symptom), so it must at least appear on the page.
  it('every cited section is a heading of that page, a further name at least on it', () => {
    const wrong = all.flatMap((c) => {
      if (!fs.existsSync(path.join(ROOT, c.page))) return [];
      const text = readDoc(c.page).replace(/`/g, '');
      const titles = headings(text);
      const found = (section: string, index: number) =>
        titles.includes(section) || (index > 0 && text.includes(section));
      return c.sections
        .filter((section, index) => !section.includes('${') && !found(section, index))
        .map((section) => ({ file: c.file, page: c.page, section }));
    });
    expect(wrong).toEqual([]);
  });

  it('no code still sends a reader to a README section or a page outside the repository', () => {
    const stale = sourceFiles().flatMap((file) => {
      const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
      return lines
        .map((line, index) => ({ file, line: index + 1, text: line.trim() }))
        .filter(({ text }) => /\bREADME\b(?!\.md)|README\.md, section|ARCHITECTURE\.md/.test(text))
        .filter(({ file }) => !file.startsWith('scripts/'));
    });
    expect(stale).toEqual([]);
  });
});
