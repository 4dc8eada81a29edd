// The cost model (scripts/cost-model.cjs) behind docs/performance.md's cost and capacity tables:
// its inputs follow the code's defaults and the reference run, each price and quota names its
// source, and the bill moves with what it is built from.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadJobConfig } from '../../../functions/pull-secret-job/config/config';
import { ROOT } from '../../helpers/run-process';

interface Line {
  line: string;
  billedTo: string;
  perCluster: number;
  fixed?: number;
}
interface PriceEntry {
  usd?: number;
  value?: number;
  unit: string;
  source: string;
  checked: string;
  verified: boolean;
}
interface Prices {
  prices: Record<string, PriceEntry>;
  quotas: Record<string, PriceEntry>;
}
interface Inputs {
  executionsPerClusterPerDay: number;
  eventsPerClusterPerDay: number;
  jobSecretManagerCalls: number;
}
interface Terraform {
  jobCpu: number;
  jobMemoryGib: number;
  adapterMemoryGib: number;
  alertConditions: number;
  traceSampleRatio: number;
}
interface CostModel {
  DEFAULT_SECRET_VERSION_RETENTION: number;
  SIZES: number[];
  UNCHANGED_RUN_REQUESTS: Record<'read' | 'write' | 'access', number>;
  costModel(
    root: string,
    reference: unknown,
  ): {
    prices: Prices;
    inputs: Inputs;
    terraform: Terraform;
    lines: Line[];
    perClusterResync: Line[];
    batchedResync: { taskSecondsPerCluster: number } | null;
    original: Line[];
    originalMonth12: Line[];
  };
  monthlyLines(inputs: Inputs, prices: Prices, tf: Terraform, design?: object): Line[];
  terraformDefaults(root: string): Terraform;
  total(lines: Line[], clusters: number): number;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const model = require(path.join(ROOT, 'scripts/cost-model.cjs')) as CostModel;
const reference = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/reference.json'), 'utf8')) as {
  sections: Record<string, { figures: unknown }>;
};
const atDefaults = model.costModel(ROOT, reference);
const line = (lines: Line[], name: string) => lines.find((l) => l.line.startsWith(name))!;

describe('the cost model', () => {
  it("keeps the job's SECRET_VERSION_RETENTION default", () => {
    const config = loadJobConfig({
      CLUSTER_ID: 'cls-1',
      GCP_PROJECT_ID: 'demo-project',
      PULL_SECRET_SOURCE: 'cluster-spec',
      HYPERFLEET_API_BASE_URL: 'https://api.example',
    });
    expect(config.retention).toBe(model.DEFAULT_SECRET_VERSION_RETENTION);
    expect(line(atDefaults.lines, 'Secret Manager active versions').perCluster).toBeCloseTo(
      model.DEFAULT_SECRET_VERSION_RETENTION *
        atDefaults.prices.prices.secretManagerActiveVersion!.usd!,
    );
  });

  it("splits an unchanged run's Secret Manager calls into the reference run's count", () => {
    const split = model.UNCHANGED_RUN_REQUESTS;
    expect(split.read + split.write + split.access).toBe(atDefaults.inputs.jobSecretManagerCalls);
  });

  it('names the page and date of every price and quota', () => {
    const entries = [
      ...Object.values(atDefaults.prices.prices),
      ...Object.values(atDefaults.prices.quotas),
    ];
    expect(entries.length).toBeGreaterThan(10);
    for (const entry of entries) {
      expect(entry.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(entry.source).toMatch(
        /^(https:\/\/cloud\.google\.com\/\S+|not published: check your project's quota page.*)$/,
      );
      expect(entry.usd ?? entry.value).toBeGreaterThan(0);
      // An unpublished default is never presented as verified.
      if (entry.source.startsWith('not published')) expect(entry.verified).toBe(false);
    }
  });

  it('reads its sizes and alert conditions from Terraform, so a changed default changes the bill', () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'cost-model-'));
    try {
      const module = 'terraform/modules/pullsecret-adapter';
      fs.cpSync(path.join(ROOT, module), path.join(copy, module), { recursive: true });
      fs.cpSync(path.join(ROOT, 'bench/prices.json'), path.join(copy, 'bench/prices.json'));
      const variables = path.join(copy, module, 'variables.tf');
      const text = fs.readFileSync(variables, 'utf8');
      expect(text).toContain('memory                   = optional(string, "512Mi")');
      fs.writeFileSync(
        variables,
        text.replace(
          'memory                   = optional(string, "512Mi")',
          'memory                   = optional(string, "2Gi")',
        ),
      );
      const bigger = model.costModel(copy, reference);
      expect(atDefaults.terraform.jobMemoryGib).toBe(0.5);
      expect(bigger.terraform.jobMemoryGib).toBe(2);
      expect(line(bigger.lines, 'job executions').perCluster).toBeGreaterThan(
        line(atDefaults.lines, 'job executions').perCluster,
      );
      expect(atDefaults.terraform.alertConditions).toBeGreaterThan(0);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it('gets the units right: lines recomputed by hand from list prices', () => {
    // One execution and 48 events a cluster and day, 30.44 days, 1,000 clusters.
    const inputs = {
      ...atDefaults.inputs,
      executionsPerClusterPerDay: 1,
      eventsPerClusterPerDay: 48,
      jobWallSeconds: 0.5,
    };
    const lines = model.monthlyLines(inputs, atDefaults.prices, atDefaults.terraform);
    const days = 365.25 / 12;
    const perThousand = (name: string) => 1000 * line(lines, name).perCluster;
    // 10.5 s billed (0.5 s wall + 10 s start) × (1 vCPU × $0.000018 + 0.5 GiB × $0.000002).
    expect(perThousand('job executions')).toBeCloseTo(1000 * days * 10.5 * 0.000019, 6);
    // $0.03 per 10,000 AccessSecretVersion, one a run.
    expect(perThousand('Secret Manager access')).toBeCloseTo((1000 * days * 0.03) / 10_000, 6);
    // 1,000 bytes a publish and a push, $40 a TiB (2^40 bytes); the reporter gets 2 messages a run.
    expect(perThousand('Pub/Sub')).toBeCloseTo(
      (1000 * days * (48 + 2) * 2 * 1000 * 40) / 2 ** 40,
      6,
    );
    // $0.06 a version and month.
    expect(perThousand('Secret Manager active versions')).toBeCloseTo(60, 6);
  });

  it("prices the spans Terraform's sampler keeps", () => {
    expect(atDefaults.terraform.traceSampleRatio).toBe(1);
    const sampled = model.monthlyLines(atDefaults.inputs, atDefaults.prices, {
      ...atDefaults.terraform,
      traceSampleRatio: 0.1,
    });
    expect(line(sampled, 'Cloud Trace').perCluster).toBeCloseTo(
      0.1 * line(atDefaults.lines, 'Cloud Trace').perCluster,
    );
  });

  it('scales the per-execution lines with executions and leaves the versions alone', () => {
    const doubled = model.monthlyLines(
      {
        ...atDefaults.inputs,
        executionsPerClusterPerDay: atDefaults.inputs.executionsPerClusterPerDay * 2,
      },
      atDefaults.prices,
      atDefaults.terraform,
    );
    for (const name of ['job executions', 'Secret Manager access', 'reporter'])
      expect(line(doubled, name).perCluster).toBeCloseTo(
        2 * line(atDefaults.perClusterResync, name).perCluster,
      );
    expect(line(doubled, 'Secret Manager active versions').perCluster).toBe(
      line(atDefaults.lines, 'Secret Manager active versions').perCluster,
    );
  });

  it("spreads the fixed lines over the fleet and prices the original design's job per event and version per run", () => {
    const [small, , large] = model.SIZES as [number, number, number];
    expect(model.total(atDefaults.lines, small)).toBeGreaterThan(
      model.total(atDefaults.lines, large),
    );
    const ours = line(atDefaults.perClusterResync, 'job executions').perCluster;
    const theirs = line(atDefaults.original, 'job executions').perCluster;
    expect(theirs / ours).toBeCloseTo(
      atDefaults.inputs.eventsPerClusterPerDay / atDefaults.inputs.executionsPerClusterPerDay,
    );
    const versions = (lines: Line[]) => line(lines, 'Secret Manager active versions').perCluster;
    expect(versions(atDefaults.original)).toBeGreaterThan(100 * versions(atDefaults.lines));
    expect(versions(atDefaults.originalMonth12)).toBeCloseTo(23 * versions(atDefaults.original));
  });

  it("prices the daily resync as the bench's one batched execution: its task-seconds, not an execution per cluster", () => {
    const batch = atDefaults.batchedResync!;
    const rows = reference.sections.rotation!.figures as {
      resync: { taskSecondsPerCluster: number };
    }[];
    expect(batch.taskSecondsPerCluster).toBe(rows[rows.length - 1]!.resync.taskSecondsPerCluster);
    const days = 365.25 / 12;
    // fleet-days' steady executions are all resyncs: batched, none is left per cluster.
    expect(atDefaults.inputs.executionsPerClusterPerDay).toBe(1);
    const price = 1 * 0.000018 + 0.5 * 0.000002;
    expect(line(atDefaults.lines, 'job executions').perCluster).toBeCloseTo(
      days * batch.taskSecondsPerCluster * price,
      9,
    );
    expect(line(atDefaults.lines, 'job executions').perCluster).toBeLessThan(
      line(atDefaults.perClusterResync, 'job executions').perCluster / 50,
    );
    // Per-cluster executions beyond the resync (changes) are still priced one by one.
    const busier = model.monthlyLines(
      { ...atDefaults.inputs, executionsPerClusterPerDay: 2 },
      atDefaults.prices,
      atDefaults.terraform,
      { batchedResync: batch },
    );
    expect(line(busier, 'job executions').perCluster).toBeCloseTo(
      line(atDefaults.lines, 'job executions').perCluster +
        line(atDefaults.perClusterResync, 'job executions').perCluster,
      9,
    );
  });
});
