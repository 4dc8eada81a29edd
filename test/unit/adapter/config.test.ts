import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadAdapterConfig } from '../../../functions/adapter/config/config';
import { DEFAULT_PRECONDITIONS } from '../../../functions/adapter/decision/preconditions';

const base = {
  HYPERFLEET_API_BASE_URL: 'https://api:8000',
  PULL_SECRET_JOB: 'projects/p/locations/us-central1/jobs/pullsecret-job',
};

describe('loadAdapterConfig', () => {
  it('has documented defaults', () => {
    const config = loadAdapterConfig(base);
    expect(config.decision).toEqual({
      resyncIntervalMs: 24 * 3600_000,
      // A quarter of the interval unless RESYNC_SPREAD says otherwise.
      resyncSpreadMs: 6 * 3600_000,
      driftRepairBackoffMs: 5 * 60_000,
      executionTimeoutMs: 25 * 60_000,
      executionCheckAfterMs: 3 * 60_000,
      // 3 attempts, each a RunJob and a ListExecutions of up to 30 s, and 2 waits of up to 5 s.
      launchGraceMs: 190_000,
      retryBackoffBaseMs: 30_000,
      retryBackoffMaxMs: 30 * 60_000,
      permanentFailureRetryMs: 3600_000,
      heartbeatMs: 300_000,
    });
    expect(config.preconditions).toBe(DEFAULT_PRECONDITIONS);
    expect(config.pullSecretSpecPath).toBe('spec.pullSecret.data');
    expect(config.launchSettleMs).toBe(1000);
    expect(config.launchRate).toEqual({ perMinute: 0, instances: 1, maxWaitMs: 2000 });
  });

  it('reads the launch rate and refuses a share of one launch a minute or less', () => {
    expect(
      loadAdapterConfig({
        ...base,
        LAUNCH_RATE_PER_MINUTE: '120',
        LAUNCH_RATE_INSTANCES: '10',
        LAUNCH_RATE_MAX_WAIT: '500ms',
      }).launchRate,
    ).toEqual({ perMinute: 120, instances: 10, maxWaitMs: 500 });
    expect(() =>
      loadAdapterConfig({ ...base, LAUNCH_RATE_PER_MINUTE: '10', LAUNCH_RATE_INSTANCES: '10' }),
    ).toThrow(/LAUNCH_RATE_PER_MINUTE \(10\) must be more than LAUNCH_RATE_INSTANCES \(10\)/);
    expect(() => loadAdapterConfig({ ...base, LAUNCH_RATE_MAX_WAIT: '6s' })).toThrow(
      /LAUNCH_RATE_MAX_WAIT/,
    );
    expect(() => loadAdapterConfig({ ...base, LAUNCH_RATE_PER_MINUTE: '-1' })).toThrow(
      /LAUNCH_RATE_PER_MINUTE/,
    );
  });

  it('takes a launch settle interval from 0s (off) to 5s', () => {
    expect(loadAdapterConfig({ ...base, LAUNCH_SETTLE_INTERVAL: '0s' }).launchSettleMs).toBe(0);
    expect(loadAdapterConfig({ ...base, LAUNCH_SETTLE_INTERVAL: '750ms' }).launchSettleMs).toBe(
      750,
    );
    expect(() => loadAdapterConfig({ ...base, LAUNCH_SETTLE_INTERVAL: '10s' })).toThrow(
      /LAUNCH_SETTLE_INTERVAL: must be a duration from 0s to 5s/,
    );
  });

  it('reads preconditions from a YAML file or inline JSON', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pre-'));
    const file = path.join(dir, 'preconditions.yaml');
    fs.writeFileSync(
      file,
      '- name: gold\n  expression: cluster.labels["tier"] == "gold"\n  message: only gold clusters\n',
    );
    expect(loadAdapterConfig({ ...base, PRECONDITIONS_FILE: file }).preconditions).toEqual([
      {
        name: 'gold',
        expression: 'cluster.labels["tier"] == "gold"',
        message: 'only gold clusters',
      },
    ]);
    expect(
      loadAdapterConfig({ ...base, PRECONDITIONS: '[{"name":"always","expression":"true"}]' })
        .preconditions,
    ).toHaveLength(1);
    fs.rmSync(dir, { recursive: true });
  });

  it.each([
    [{ PULL_SECRET_JOB: 'pullsecret-job' }, /PULL_SECRET_JOB: must be the job resource name/],
    [{ RESYNC_INTERVAL: 'often' }, /RESYNC_INTERVAL/],
    [{ PRECONDITIONS_FILE: '/nonexistent/file.yaml' }, /PRECONDITIONS_FILE: cannot read/],
    [{ PRECONDITIONS: '[{"expression":"true"}]' }, /PRECONDITIONS: item 0.name/],
    [{ PRECONDITIONS: '{ not yaml: [' }, /PRECONDITIONS: not valid YAML/],
    [{ DEFAULT_PULL_SECRET_VERSION: 'latest' }, /DEFAULT_PULL_SECRET_VERSION: must be projects/],
    [{ PULL_SECRET_SPEC_PATH: 'spec..x' }, /PULL_SECRET_SPEC_PATH: must be a dot path/],
  ])('rejects %j', (override, expected) => {
    expect(() => loadAdapterConfig({ ...base, ...override })).toThrow(expected);
  });
});
