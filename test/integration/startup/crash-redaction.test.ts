import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { canaryPullSecret, leaks, type Canary } from '../../helpers/canary';
import { JOB_CLI, ROOT, runNode, type ProcessResult } from '../../helpers/run-process';

// Issue 26, item 7: Node's crash printer writes an uncaught error (message, stack and properties)
// to stderr itself, past redactStream; functions-framework's own handler prints `err.stack` with
// console.error. A crash whose error quotes a secret must print it redacted, in the job and in
// both functions, as the bundles that ship run.

// Preloaded into the process: once the entry has loaded (its stderr is wrapped, or a crash
// handler is installed), crashes with CRASH_MESSAGE in the message and, as bytes, in a property.
const PRELOAD = `
const original = process.stderr.write;
const timer = setInterval(() => {
  if (process.stderr.write === original && process.listenerCount('uncaughtException') === 0) return;
  clearInterval(timer);
  const message = process.env.CRASH_MESSAGE;
  const error = Object.assign(new Error('boom: ' + message), { body: Buffer.from(message) });
  if (process.env.CRASH_KIND === 'rejection') Promise.reject(error);
  else throw error;
}, 5);
`;

const FRAMEWORK = path.join(
  path.dirname(require.resolve('@google-cloud/functions-framework', { paths: [ROOT] })),
  'main.js',
);

const FUNCTION_ENV = {
  HYPERFLEET_API_BASE_URL: 'http://127.0.0.1:9',
  PULL_SECRET_JOB: 'projects/demo-project/locations/us-central1/jobs/pull-secret',
  LAUNCH_QUEUE: 'projects/demo-project/locations/us-central1/queues/pullsecret-launches',
  LAUNCHER_SERVICE_ACCOUNT: 'pullsecret-launcher@demo-project.iam.gserviceaccount.com',
  CLOUD_RUN_EMULATOR_HOST: '127.0.0.1:9',
};

describe('a crash prints one redacted line, in the job and in both functions', () => {
  let dir: string;
  let preload: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crash-redaction-'));
    preload = path.join(dir, 'crash.cjs');
    fs.writeFileSync(preload, PRELOAD);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const crashEnv = (kind: string, message: string) => ({
    NODE_OPTIONS: `--require=${preload}`,
    CRASH_KIND: kind,
    CRASH_MESSAGE: message,
  });

  const expectRedacted = (run: ProcessResult, canaries: readonly Canary[], exitCode: number) => {
    expect(leaks(`${run.stdout}\n${run.stderr}`, canaries)).toEqual([]);
    expect(run.code).toBe(exitCode);
    const line = run.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { severity?: string; message?: string })
      .find((l) => l.severity === 'CRITICAL');
    expect(line?.message).toMatch(
      /crashed \((uncaught exception|unhandled rejection)\): Error: boom: /,
    );
    expect(line?.message).toContain('[REDACTED]');
  };

  it.each(['exception', 'rejection'])(
    'the job, an uncaught %s quoting the pull secret',
    async (kind) => {
      const canary = canaryPullSecret(`crash-job-${kind}`);
      // No other configuration: the job fails its config check, and the crash comes after.
      const run = await runNode(JOB_CLI, ['run-job', 'pull-secret'], {
        PULL_SECRET_DATA: canary.text,
        ...crashEnv(kind, `${canary.text} auth=${canary.forms[2]} password=${canary.forms[4]}`),
      });
      expectRedacted(run, [canary], 1);
    },
  );

  it.each([
    ['adapter', 'exception'],
    ['reporter', 'rejection'],
  ])(
    'the %s function, an uncaught %s quoting a pull secret and a configured token',
    async (target, kind) => {
      const canary = canaryPullSecret(`crash-${target}`);
      const token = `otel-canary-${randomBytes(9).toString('hex')}`;
      const run = await runNode(
        FRAMEWORK,
        [
          `--target=${target}`,
          '--signature-type=cloudevent',
          `--source=${path.join(ROOT, 'dist-bundle', target, 'index.mjs')}`,
          '--port=0',
        ],
        {
          ...FUNCTION_ENV,
          // A configured secret the function knows: registered with its redactor.
          OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${token}`,
          ...crashEnv(kind, `cluster body ${canary.text} token ${token}`),
        },
        30_000,
      );
      expectRedacted(run, [canary, { text: token, forms: [token] }], 16);
    },
  );
});
