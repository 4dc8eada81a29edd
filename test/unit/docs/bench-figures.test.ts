// Figures the documentation quotes from the bench are rendered from bench/reference.json by
// scripts/render-bench-figures.cjs: this fails when a page differs from the reference (a figure
// edited by hand, or a reference refreshed without `npm run docs:figures`). The renderer itself
// runs on copies: it must notice a change, rewrite only its regions and merge a bench run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adapterEnvSchema } from '../../../functions/adapter/config/config';
import { readDoc } from '../../helpers/docs';
import { ROOT } from '../../helpers/run-process';

const RENDERER = path.join(ROOT, 'scripts/render-bench-figures.cjs');
const REFERENCE = 'bench/reference.json';

function render(...args: string[]) {
  return spawnSync(process.execPath, [RENDERER, ...args], { encoding: 'utf8' });
}

const copies: string[] = [];
/** A copy of what the renderer reads: the pages and the reference. */
function copyOfRepository(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-figures-'));
  copies.push(dir);
  for (const entry of [
    'README.md',
    'docs',
    REFERENCE,
    'bench/prices.json',
    'terraform/modules/pullsecret-adapter',
  ])
    fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  return dir;
}
afterAll(() => copies.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

interface JobFigures {
  kind: string;
  secretManagerCalls: number;
}
interface Reference {
  sections: Record<string, { measuredAt: string; figures: unknown }>;
}
const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;

describe('bench figures in the documentation', () => {
  it('match bench/reference.json (otherwise: npm run docs:figures)', () => {
    const result = render('--check');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('are quoted from the reference where the job protocol gives the call counts', () => {
    const reference = readJson<Reference>(path.join(ROOT, REFERENCE));
    const calls = (reference.sections.job!.figures as JobFigures[])
      .map((run) => run.secretManagerCalls)
      .join(' / ');
    expect(readDoc('docs/design/job-protocol.md')).toContain(
      `<!-- bench:job-sm-calls -->${calls}<!-- /bench -->`,
    );
    expect(readDoc('docs/performance.md')).toContain('<!-- bench:job-table -->');
  });

  it('a changed reference makes the check fail, naming the page and the fix; a render fixes it', () => {
    const copy = copyOfRepository();
    const file = path.join(copy, REFERENCE);
    const reference = readJson<Reference>(file);
    // One call more than measured: whatever the reference says today, the pages now differ.
    (reference.sections.job!.figures as JobFigures[])[1]!.secretManagerCalls += 1;
    fs.writeFileSync(file, JSON.stringify(reference));

    const stale = render('--check', '--root', copy);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toContain('docs/design/job-protocol.md');
    expect(stale.stderr).toContain('npm run docs:figures');

    expect(render('--root', copy).status).toBe(0);
    expect(render('--check', '--root', copy).status).toBe(0);
    const protocol = fs.readFileSync(path.join(copy, 'docs/design/job-protocol.md'), 'utf8');
    const expected = (reference.sections.job!.figures as JobFigures[])
      .map((run) => run.secretManagerCalls)
      .join(' / ');
    expect(protocol).toContain(`<!-- bench:job-sm-calls -->${expected}<!-- /bench -->`);
    // Only the regions change: the rest of the page is as written.
    const outside = (text: string) => text.replace(/<!-- bench:[\s\S]*?<!-- \/bench -->/g, '');
    expect(outside(protocol)).toBe(outside(readDoc('docs/design/job-protocol.md')));
  });

  it("--merge takes a bench run's sections into the reference, with the run's date and machine", () => {
    const copy = copyOfRepository();
    const results = path.join(copy, 'latest.json');
    const machine = {
      cpus: 4,
      cpuModel: 'Test CPU',
      memoryGb: 8,
      node: 'v22.1.0',
      platform: 'linux x64',
    };
    const job = ['first', 'unchanged', 'changed'].map((kind, i) => ({
      kind,
      runs: 3,
      wallMsP50: 100 + i,
      wallMsP90: 110 + i,
      maxRssMb: 70,
      secretManagerCalls: 6 - i,
      kubernetesCalls: 1,
    }));
    fs.writeFileSync(results, JSON.stringify({ measuredAt: '2027-01-02T03:04:05Z', machine, job }));

    const merged = render('--merge', results, '--root', copy);
    expect(merged.stderr).toBe('');
    expect(merged.status).toBe(0);
    const reference = readJson<Reference>(path.join(copy, REFERENCE));
    expect(reference.sections.job).toEqual({
      measuredAt: '2027-01-02T03:04:05Z',
      machine,
      figures: job,
    });
    // Sections the run did not measure are kept.
    expect(reference.sections.adapter).toEqual(
      readJson<Reference>(path.join(ROOT, REFERENCE)).sections.adapter,
    );
    const performance = fs.readFileSync(path.join(copy, 'docs/performance.md'), 'utf8');
    expect(performance).toContain('Reference run (job): 2027-01-02 on 4 × Test CPU vCPUs');
    expect(fs.readFileSync(path.join(copy, 'docs/design/job-protocol.md'), 'utf8')).toContain(
      '<!-- bench:job-sm-calls -->6 / 5 / 4<!-- /bench -->',
    );
  });
});

describe('the cost and capacity tables', () => {
  it("come from a fleet-days run at the adapter's default RESYNC_INTERVAL", () => {
    const days = readJson<Reference>(path.join(ROOT, REFERENCE)).sections.fleetDays!.figures as {
      resyncInterval: string;
    };
    const defaults = adapterEnvSchema.parse({
      HYPERFLEET_API_BASE_URL: 'https://api.example',
      PULL_SECRET_JOB: 'projects/p/locations/r/jobs/j',
      LAUNCH_QUEUE: 'projects/demo-project/locations/us-central1/queues/pullsecret-launches',
      LAUNCHER_SERVICE_ACCOUNT: 'pullsecret-launcher@demo-project.iam.gserviceaccount.com',
    });
    expect(Number.parseFloat(days.resyncInterval) * 3_600_000).toBe(defaults.RESYNC_INTERVAL);
  });
});
