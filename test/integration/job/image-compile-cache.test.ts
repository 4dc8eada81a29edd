import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import nodeModule from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { readJobImageNode } from '../../../emulators/pullsecret/job-image';
import { ROOT } from '../../helpers/run-process';

// The job image (functions/pull-secret-job/Dockerfile) warms Node's compile cache at build time
// so that each run reads V8's compiled code instead of compiling the bundle. Node keys that cache
// by V8's flags: a warm-up run with other flags or another NODE_OPTIONS than the ENTRYPOINT's
// fills a cache directory the job never reads, silently. This runs the Dockerfile's own commands.
const image = readJobImageNode();
const BUNDLE = path.join(ROOT, 'dist-bundle/pull-secret-job');
// Node >= 22.1 has the compile cache (CI runs this suite on Node 22 as well as 20).
const hasCompileCache = 'enableCompileCache' in nodeModule;

describe('the job image as its Dockerfile builds it', () => {
  it('runs main.mjs with V8 optimizing compilers off and a compile cache', () => {
    expect(image.binary).toBe('/nodejs/bin/node');
    expect(image.nodeFlags).toEqual(['--max-opt=1']);
    expect(image.env.NODE_COMPILE_CACHE).toBe('/app/compile-cache');
    expect(image.env.NODE_OPTIONS).toBe('--max-semi-space-size=1');
  });

  it('warms the cache with the same flags and NODE_OPTIONS as its ENTRYPOINT', () => {
    expect(image.warmups.length).toBeGreaterThanOrEqual(2);
    for (const warmup of image.warmups) {
      expect(warmup.slice(0, 1 + image.nodeFlags.length)).toEqual([
        image.binary,
        ...image.nodeFlags,
      ]);
      // A child process would not inherit the flags (and `process.execArgv` of a `-e` script
      // holds the script itself: handing it on makes the child run the warm-up again, forever).
      expect(warmup.join(' ')).not.toMatch(/spawn|fork|exec\(/);
    }
  });

  (hasCompileCache ? describe : describe.skip)('on Node >= 22.1', () => {
    let app: string;
    const env = (cache: string) => ({
      PATH: process.env.PATH,
      NODE_OPTIONS: image.env.NODE_OPTIONS,
      NODE_COMPILE_CACHE: cache,
    });
    /** Runs `version` as the ENTRYPOINT does (with `flags`), printing the cache's decisions. */
    const runVersion = (flags: readonly string[], cache: string) =>
      spawnSync(process.execPath, [...flags, 'main.mjs', 'version'], {
        cwd: app,
        env: { ...env(cache), NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
        encoding: 'utf8',
      });

    beforeAll(() => {
      // The image's /app: the bundle and nothing else.
      app = fs.mkdtempSync(path.join(os.tmpdir(), 'job-image-'));
      fs.cpSync(BUNDLE, app, { recursive: true });
      fs.rmSync(path.join(app, 'meta.json'), { force: true });
      for (const warmup of image.warmups) {
        const run = spawnSync(process.execPath, warmup.slice(1), {
          cwd: app,
          env: env(path.join(app, 'compile-cache')),
          encoding: 'utf8',
        });
        expect(run.status).toBe(0);
      }
    });
    afterAll(() => fs.rmSync(app, { recursive: true, force: true }));

    it('the ENTRYPOINT reads the cache the warm-ups wrote, for main.mjs and its chunks', () => {
      const run = runVersion(image.nodeFlags, path.join(app, 'compile-cache'));
      expect(run.status).toBe(0);
      expect(run.stderr).toMatch(/cache for file:\/\/\S+\/main\.mjs was accepted/);
      expect(run.stderr).not.toMatch(/no such file|was not initialized|rejected|mismatch/);
    });

    it('a run with other flags finds no cache of its own (why the warm-ups must match)', () => {
      const run = runVersion([], path.join(app, 'compile-cache'));
      expect(run.status).toBe(0);
      expect(run.stderr).toMatch(/cache for file:\/\/\S+\/main\.mjs was not initialized/);
    });
  });
});
