// Issue 26, item 7: the job image's bases are pinned by digest (a tag can be repointed at other
// bytes without any change here), and nothing the job runs is writable by the job's own user (code
// running as the job could otherwise rewrite main.mjs or poison the compile cache for the next
// execution of the same instance). Docker cannot pull here, so this reads the Dockerfile with the
// same reader as the local stack and the compile-cache test (emulators/pullsecret/job-image.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  dockerfileStages,
  parseJobImageNode,
  readJobImageNode,
} from '../../../emulators/pullsecret/job-image';
import { ROOT } from '../../helpers/run-process';

const DOCKERFILE = path.join(ROOT, 'functions/pull-secret-job/Dockerfile');
const stages = dockerfileStages(fs.readFileSync(DOCKERFILE, 'utf8'));
const final = stages.at(-1)!;
const JOB_USER = '65532:65532';

/** The instructions in effect in a stage: those of the stages it is built FROM, then its own. */
const inherited = (index: number): string[] => {
  const stage = stages[index]!;
  return [...(stage.parent === undefined ? [] : inherited(stage.parent)), ...stage.lines];
};

describe('the job image: pinned bases', () => {
  it('names every base image by tag and digest (image:tag@sha256:...), stages by name', () => {
    const images = stages.filter((s) => s.parent === undefined).map((s) => s.base);
    expect(images.length).toBeGreaterThanOrEqual(2);
    for (const image of images) expect(image).toMatch(/^[a-z0-9./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/);
  });
});

describe('the job image: app files owned by root, read-only for the job', () => {
  it('runs the job as the non-root user 65532', () => {
    expect(readJobImageNode().user).toBe(JOB_USER);
  });

  it('copies everything into the final image as root, with no write bit for group or others', () => {
    const copies = final.lines.filter((line) => line.startsWith('COPY '));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      expect(copy).toMatch(/ --chown=(root:root|0:0) /);
      const mode = /--chmod=([0-7]{3,4}) /.exec(copy)?.[1];
      expect({ copy, mode }).toEqual({ copy, mode: expect.stringMatching(/^[0-7]+$/) });
      expect(parseInt(mode!, 8) & 0o022).toBe(0);
    }
    // Nothing else writes files into the final image (no RUN, no ADD: the warm cache is copied in).
    expect(final.lines.filter((line) => /^(RUN|ADD) /.test(line))).toEqual([]);
  });

  it('creates /app as root (WORKDIR creates it as the current USER), so the job cannot add or replace files in it', () => {
    const lines = inherited(stages.length - 1);
    const workdir = lines.findIndex((line) => line === 'WORKDIR /app');
    expect(workdir).toBeGreaterThanOrEqual(0);
    const userThen = lines
      .slice(0, workdir)
      .filter((line) => line.startsWith('USER '))
      .at(-1);
    expect(userThen).toMatch(/^USER (root|0)(:(root|0))?$/);
  });

  it('warms the compile cache as the job user (Node keys the cache directory by uid)', () => {
    const image = readJobImageNode();
    expect(image.warmups.length).toBeGreaterThanOrEqual(2);
    // The reader refuses a warm-up run as another user than the ENTRYPOINT's (test below).
    expect(image.user).toBe(JOB_USER);
  });
});

describe('the Dockerfile reader', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dockerfile-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (text: string) => {
    const file = path.join(dir, `Dockerfile.${Math.random().toString(36).slice(2)}`);
    fs.writeFileSync(file, text);
    return file;
  };
  const base = [
    'FROM gcr.io/distroless/nodejs22-debian12:nonroot@sha256:' + '0'.repeat(64) + ' AS runtime',
    'USER 0:0',
    'WORKDIR /app',
    'ENV NODE_OPTIONS=--max-semi-space-size=1',
    'ENV NODE_COMPILE_CACHE=/app/compile-cache',
    `USER ${JOB_USER}`,
    'FROM runtime AS warm',
  ];
  const tail = [
    'FROM runtime',
    'COPY --from=warm --chown=root:root --chmod=0555 /app/ ./',
    'ENTRYPOINT ["/nodejs/bin/node", "--max-opt=1", "main.mjs"]',
  ];

  it('follows FROM <stage>: the final stage inherits its base stage ENV and USER, warm-ups come from any stage', () => {
    const image = parseJobImageNode(
      write(
        [...base, 'RUN ["/nodejs/bin/node", "--max-opt=1", "main.mjs", "version"]', ...tail].join(
          '\n',
        ),
      ),
    );
    expect(image.user).toBe(JOB_USER);
    expect(image.env).toEqual({
      NODE_OPTIONS: '--max-semi-space-size=1',
      NODE_COMPILE_CACHE: '/app/compile-cache',
    });
    expect(image.warmups).toEqual([['/nodejs/bin/node', '--max-opt=1', 'main.mjs', 'version']]);
  });

  it.each([
    ['as root', ['USER 0:0'], /as USER 0:0 .* the ENTRYPOINT runs as USER 65532:65532/],
    [
      'with another NODE_OPTIONS',
      ['ENV NODE_OPTIONS='],
      /NODE_OPTIONS=.* the ENTRYPOINT runs .*NODE_OPTIONS=--max-semi-space-size=1/,
    ],
    [
      'into another cache directory',
      ['ENV NODE_COMPILE_CACHE=/tmp/cache'],
      /NODE_COMPILE_CACHE=\/tmp\/cache/,
    ],
  ])(
    'refuses a warm-up run %s (the job would never read that cache), naming the line',
    (_case, change, message) => {
      const file = write(
        [
          ...base,
          ...change,
          'RUN ["/nodejs/bin/node", "--max-opt=1", "main.mjs", "version"]',
          ...tail,
        ].join('\n'),
      );
      expect(() => parseJobImageNode(file)).toThrow(message);
      expect(() => parseJobImageNode(file)).toThrow(
        /RUN \["\/nodejs\/bin\/node", "--max-opt=1", "main.mjs", "version"\]: warms the compile cache/,
      );
    },
  );
});
