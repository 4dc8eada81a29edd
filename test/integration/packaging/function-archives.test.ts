// `npm run package`: the function archives are the bundles (small, nothing to reinstall but the
// runner), reproducible byte for byte, and run from where they are unpacked with no node_modules of
// ours (only the runner, as the buildpack installs it).
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../helpers/run-process';

const SCRIPT = path.join(ROOT, 'scripts/package-functions.cjs');
const FRAMEWORK = '@google-cloud/functions-framework';

function packageInto(dir: string): Record<string, string> {
  execFileSync(process.execPath, [SCRIPT, '--out', dir], { stdio: 'pipe' });
  return Object.fromEntries(
    ['adapter', 'reporter'].map((fn) => [
      fn,
      crypto
        .createHash('sha256')
        .update(fs.readFileSync(path.join(dir, `${fn}.zip`)))
        .digest('hex'),
    ]),
  );
}

function unzip(zip: string, into: string): string[] {
  const script = `import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nz.extractall(sys.argv[2])\nprint("\\n".join(f"{i.filename} {i.date_time} {oct(i.external_attr >> 16)}" for i in z.infolist()))`;
  return execFileSync('python3', ['-c', script, zip, into], { encoding: 'utf8' })
    .trim()
    .split('\n');
}

describe('npm run package', () => {
  let work: string;
  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'function-archives-'));
  });
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  it('builds the same bytes from the same source, twice', () => {
    const first = packageInto(path.join(work, 'one'));
    const second = packageInto(path.join(work, 'two'));
    expect(second).toEqual(first);
  }, 120_000);

  it.each(['adapter', 'reporter'])(
    "ships the %s as its bundle, a manifest naming only the runner, and that runner's lock",
    (fn) => {
      const zip = path.join(work, 'one', `${fn}.zip`);
      expect(fs.statSync(zip).size).toBeLessThan(2 * 1024 * 1024);
      const unpacked = path.join(work, `unpacked-${fn}`);
      const entries = unzip(zip, unpacked);
      const names = entries.map((entry) => entry.split(' ')[0]!);
      expect(names).toEqual([...names].sort());
      expect(names).toEqual(
        expect.arrayContaining(['index.mjs', 'package.json', 'package-lock.json']),
      );
      expect(
        names.filter((name) => !/^(index\.mjs|chunk-\w+\.mjs|package(-lock)?\.json)$/.test(name)),
      ).toEqual([]);
      for (const entry of entries) expect(entry).toMatch(/ \(1980, 1, 1, 0, 0, 0\) 0o100644$/);
      const manifest = JSON.parse(fs.readFileSync(path.join(unpacked, 'package.json'), 'utf8'));
      expect(manifest.main).toBe('index.mjs');
      expect(Object.keys(manifest.dependencies)).toEqual([FRAMEWORK]);
      const lock = JSON.parse(fs.readFileSync(path.join(unpacked, 'package-lock.json'), 'utf8'));
      expect(lock.packages[''].dependencies).toEqual(manifest.dependencies);
      expect(lock.packages[`node_modules/${FRAMEWORK}`].version).toBe(
        manifest.dependencies[FRAMEWORK],
      );

      // As the buildpack installs it: the runner only (linked from ours), nothing else of ours.
      fs.mkdirSync(path.join(unpacked, 'node_modules/@google-cloud'), { recursive: true });
      fs.symlinkSync(
        path.join(ROOT, 'node_modules', FRAMEWORK),
        path.join(unpacked, 'node_modules', FRAMEWORK),
      );
      // Every chunk loads (the lazy ones too), then the function handles an event.
      const chunks = names.filter((name) => name.startsWith('chunk-'));
      const probe = `(async () => {
  for (const chunk of ${JSON.stringify(chunks)}) await import('./' + chunk);
  await import('./index.mjs');
  const { getFunction } = require('${FRAMEWORK}/testing');
  await getFunction('${fn}')({ type: 'google.cloud.pubsub.topic.v1.messagePublished', id: '1', source: 's', specversion: '1.0', data: {} });
  process.stdout.write('handled');
})();`;
      const run = spawnSync(process.execPath, ['-e', probe], {
        cwd: unpacked,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          METADATA_SERVER_DETECTION: 'none',
          HYPERFLEET_API_BASE_URL: 'http://127.0.0.1:9',
          PULL_SECRET_JOB: 'projects/demo/locations/local/jobs/pullsecret-job',
          LAUNCH_QUEUE: 'projects/demo-project/locations/us-central1/queues/pullsecret-launches',
          LAUNCHER_SERVICE_ACCOUNT: 'pullsecret-launcher@demo-project.iam.gserviceaccount.com',
          LOG_LEVEL: 'error',
        },
      });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe('handled');
    },
  );
});
