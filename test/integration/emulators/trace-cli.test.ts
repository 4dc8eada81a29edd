import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SpanStore } from '../../../emulators/traces/span-store';
import { renderWaterfall } from '../../../emulators/pullsecret/traces/waterfall';
import { RECONCILE_SPANS, TRACE_ID } from '../../fixtures/traces/reconcile';
import { ROOT, runNode } from '../../helpers/run-process';

const TRACE = path.join(ROOT, 'dist/emulators/pullsecret/stack/trace.js');
let work: string;
let stackFile: string;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'trace-cli-'));
  // A running stack keeps its traces wherever stack.json says.
  const dir = path.join(work, 'elsewhere', 'traces');
  await new SpanStore(dir).append(RECONCILE_SPANS);
  stackFile = path.join(work, 'stack.json');
  fs.writeFileSync(stackFile, JSON.stringify({ traces: { endpoint: 'http://127.0.0.1:1', dir } }));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('npm run trace', () => {
  it("draws the cluster's latest reconcile as the waterfall (exit 0)", async () => {
    const run = await runNode(TRACE, ['c1', '--stack', stackFile], {});
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${renderWaterfall(TRACE_ID, RECONCILE_SPANS).join('\n')}\n`);
  });

  it('--json gives the rows in tree order; --trace picks a trace without a cluster id', async () => {
    const run = await runNode(
      TRACE,
      ['--trace', TRACE_ID.toUpperCase(), '--json', '--stack', stackFile],
      {},
    );
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as {
      traceId: string;
      spans: { name: string; depth: number; service: string; details: Record<string, string> }[];
    };
    expect(json.traceId).toBe(TRACE_ID);
    expect(json.spans.slice(0, 2)).toEqual([
      expect.objectContaining({
        name: 'sentinel.publish',
        depth: 0,
        service: 'hyperfleet-sentinel',
      }),
      expect.objectContaining({
        name: 'adapter.handle',
        depth: 1,
        details: { decision: 'launch', reason: 'GenerationAhead' },
      }),
    ]);
  });

  it('after the stack stopped (no stack.json), reads the traces it left beside it', async () => {
    const stopped = fs.mkdtempSync(path.join(os.tmpdir(), 'trace-cli-stopped-'));
    await new SpanStore(path.join(stopped, 'traces')).append(RECONCILE_SPANS);
    const run = await runNode(TRACE, ['c1', '--stack', path.join(stopped, 'stack.json')], {});
    fs.rmSync(stopped, { recursive: true, force: true });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('sentinel.publish');
  });

  it('exit 3 when no trace names the cluster, or there is no stack and no traces', async () => {
    const unknown = await runNode(TRACE, ['c2', '--stack', stackFile], {});
    expect([unknown.code, unknown.stdout]).toEqual([3, '']);
    expect(unknown.stderr).toMatch(/^trace: no trace names cluster c2 in .+traces yet/);
    const missing = path.join(work, 'nowhere', 'stack.json');
    const none = await runNode(TRACE, ['c1', '--stack', missing], {});
    expect(none.code).toBe(3);
    expect(none.stderr).toContain(`no local stack (${missing} is missing)`);
  });

  it.each([
    [[], /give a CLUSTER_ID \(or --trace TRACE_ID\)/],
    [['a', 'b'], /give one CLUSTER_ID/],
    [['c1', '--trace', 'xyz'], /--trace "xyz" is not a trace id: use 32 hex digits/],
    [['c1', '--bogus'], /unknown option --bogus/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const run = await runNode(TRACE, [...args, '--stack', stackFile], {});
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('Usage: npm run -s trace -- CLUSTER_ID');
  });
});
