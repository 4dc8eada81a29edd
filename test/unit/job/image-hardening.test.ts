// Issue 26, item 7: the job image's bases are pinned by digest (a tag can be repointed at other
// bytes without any change here), and nothing the job runs is writable by the job's own user (code
// running as the job could otherwise rewrite main.mjs or poison the compile cache for the next
// execution of the same instance). Docker cannot pull here, so this reads the Dockerfile with the
// same reader as the local stack and the compile-cache test (emulators/pullsecret/job-image.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dockerfileStages, parseJobImageNode } from '../../../emulators/pullsecret/job-image';
import { ROOT } from '../../helpers/run-process';

const DISTROLESS = path.join(ROOT, 'functions/pull-secret-job/Dockerfile');
const UBI = path.join(ROOT, 'functions/pull-secret-job/Dockerfile.ubi');
const JOB_USER = '65532:65532';

/** One job image's Dockerfile: its stages and how it runs Node. */
const imageOf = (file: string, user: string) => {
  const stages = dockerfileStages(fs.readFileSync(file, 'utf8'));
  /** The instructions in effect in a stage: those of the stages it is built FROM, then its own. */
  const inherited = (index: number): string[] => {
    const stage = stages[index]!;
    return [...(stage.parent === undefined ? [] : inherited(stage.parent)), ...stage.lines];
  };
  return { name: path.basename(file), stages, inherited, node: parseJobImageNode(file), user };
};
const IMAGES = [imageOf(DISTROLESS, JOB_USER), imageOf(UBI, '1001:0')];

describe.each(IMAGES)('the job image ($name): pinned bases', ({ stages }) => {
  it('names every base image by tag and digest (image:tag@sha256:...), stages by name', () => {
    const images = stages.filter((s) => s.parent === undefined).map((s) => s.base);
    expect(images.length).toBeGreaterThanOrEqual(2);
    for (const image of images) expect(image).toMatch(/^[a-z0-9./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/);
  });
});

describe.each(IMAGES)(
  'the job image ($name): app files owned by root, read-only for the job',
  ({ stages, inherited, node, user }) => {
    const final = stages.at(-1)!;

    it('runs the job as its non-root user', () => {
      expect(node.user).toBe(user);
      expect(node.user).not.toMatch(/^(root|0)(:|$)/);
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
      expect(node.warmups.length).toBeGreaterThanOrEqual(2);
      // The reader refuses a warm-up run as another user than the ENTRYPOINT's (test below).
      expect(node.user).toBe(user);
    });
  },
);

// The seeds' Red Hat UBI base, as a variant (docs/architecture.md, "Where we depart from the design
// documents, and why"). No container engine here: what can be held without building it is that
// it is the same job as the distroless image, the one every test, the local stack and the bench run.
describe('the UBI variant (Dockerfile.ubi) is the same job as the distroless image', () => {
  const [distroless, ubi] = IMAGES as [(typeof IMAGES)[0], (typeof IMAGES)[0]];
  /** A stage's instructions with its own node binary written NODE, USER lines left out. */
  const asRun = (image: (typeof IMAGES)[0], index: number) =>
    image.stages[index]!.lines.filter((line) => !line.startsWith('USER ')).map((line) =>
      line.replaceAll(JSON.stringify(image.node.binary), '"NODE"'),
    );
  const stageNamed = (image: (typeof IMAGES)[0], name: string) =>
    image.stages.findIndex((stage) => stage.name === name);

  it('pins a Red Hat UBI 9 Node.js 22 base, where the distroless image pins Node 22 too', () => {
    for (const stage of ubi.stages.filter((s) => s.parent === undefined))
      expect(stage.base).toMatch(/^registry\.access\.redhat\.com\/ubi9\/nodejs-22-minimal:/);
    expect(distroless.stages.find((s) => s.name === 'runtime')?.base).toMatch(/nodejs22/);
    expect(distroless.stages.find((s) => s.name === 'build')?.base).toMatch(/^node:22[-.@]/);
  });

  it('builds the same bundle with the same commands from the same files', () => {
    expect(asRun(ubi, stageNamed(ubi, 'build'))).toEqual(
      asRun(distroless, stageNamed(distroless, 'build')),
    );
  });

  it('runs it the same way: ENTRYPOINT flags, CMD, NODE_OPTIONS, compile cache, warm-ups', () => {
    expect(ubi.node.nodeFlags).toEqual(distroless.node.nodeFlags);
    expect(ubi.node.env).toEqual(distroless.node.env);
    const rest = (warmups: readonly (readonly string[])[]) => warmups.map((w) => w.slice(1));
    expect(rest(ubi.node.warmups)).toEqual(rest(distroless.node.warmups));
    expect(asRun(ubi, ubi.stages.length - 1)).toEqual(
      asRun(distroless, distroless.stages.length - 1),
    );
  });

  it('copies the same artefacts into the warm stage, owned by the job user there', () => {
    const copies = (image: (typeof IMAGES)[0]) =>
      asRun(image, stageNamed(image, 'warm'))
        .filter((line) => line.startsWith('COPY '))
        .map((line) => line.replace(/ --chown=\S+/, ''));
    expect(copies(ubi)).toEqual(copies(distroless));
    for (const copy of ubi.stages[stageNamed(ubi, 'warm')]!.lines.filter((l) =>
      l.startsWith('COPY '),
    ))
      expect(copy).toContain(`--chown=${ubi.user} `);
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
