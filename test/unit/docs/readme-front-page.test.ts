// README.md is the front page: what it is, the diagram, the quick start, the prerequisites, the
// console picture, how it works in a few steps and the links into docs/. Everything else lives in
// docs/, so the front page stays short enough to read at once.
import { headings, readDoc } from '../../helpers/docs';

const README = readDoc('README.md');
const MAX_BYTES = 20 * 1024;

describe('README.md, the front page', () => {
  it(`stays under ${MAX_BYTES / 1024} KB (the rest belongs in docs/)`, () => {
    expect(Buffer.byteLength(README)).toBeLessThanOrEqual(MAX_BYTES);
  });

  it('has the diagram, the console picture and the front-page sections', () => {
    expect(README).toContain('```mermaid');
    expect(README).toContain('](docs/console.png)');
    expect(headings(README)).toEqual(
      expect.arrayContaining([
        'Quick start',
        'Prerequisites',
        'How it works',
        'Documentation',
        'Security',
      ]),
    );
  });
});
