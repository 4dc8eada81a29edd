import path from 'node:path';
import { pagesWithHeading } from '../../helpers/docs';
import { ROOT, runNode } from '../../helpers/run-process';

// Started as users and Cloud Run start it: functions-framework loading the built function.
const FRAMEWORK = path.join(
  path.dirname(require.resolve('@google-cloud/functions-framework', { paths: [ROOT] })),
  'main.js',
);
const start = (target: 'adapter' | 'reporter', env: Record<string, string>) =>
  runNode(
    FRAMEWORK,
    [
      `--target=${target}`,
      '--signature-type=cloudevent',
      `--source=${path.join(ROOT, 'dist/functions', target, 'index.js')}`,
      '--port=0',
    ],
    env,
    20_000,
  );

describe('a function started with bad configuration', () => {
  it('adapter: one block naming each variable and its problem, exit 2, no framework stack trace', async () => {
    const run = await start('adapter', {
      HYPERFLEET_API_BASE_URL: 'not a url',
      RETRY_BACKOFF_BASE: 'banana',
    });
    expect(run.code).toBe(2);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('pullsecret-adapter cannot start: its configuration is invalid.');
    expect(run.stderr).toMatch(/^ {2}HYPERFLEET_API_BASE_URL +must be the API base URL/m);
    expect(run.stderr).toMatch(/^ {2}PULL_SECRET_JOB +is not set \(required\)$/m);
    expect(run.stderr).toMatch(/^ {2}RETRY_BACKOFF_BASE +must be a positive duration/m);
    expect(lines.at(-1)).toBe(
      'Set the variables above (docs/configuration.md, "Adapter function") and start it again.',
    );
    expect(run.stderr).not.toContain("Provided module can't be loaded");
    expect(run.stderr).not.toMatch(/^\s+at /m);
    // A value may be a secret: only names and rules are printed.
    expect(run.stderr).not.toContain('banana');
  });

  it('reporter: the same block with its own section', async () => {
    const run = await start('reporter', {});
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^pullsecret-reporter cannot start: its configuration is invalid\.$/m,
    );
    expect(run.stderr).toMatch(/^ {2}PULL_SECRET_JOB +is not set \(required\)$/m);
    expect(run.stderr).toContain('"Reporter function"');
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it('names documentation sections that exist', () => {
    for (const section of ['Configuration reference', 'Adapter function', 'Reporter function'])
      expect({ section, pages: pagesWithHeading(section) }).toEqual({
        section,
        pages: ['docs/configuration.md'],
      });
  });
});
