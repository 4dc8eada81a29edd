// Issue 26, item 4, Terraform side. NODE_OPTIONS runs code as the job before any check of ours, so
// the module counts and alerts on RunJob audit entries whose overrides go beyond what the adapter
// sends. The pure module modules/run-job-overrides builds the filter; real `terraform apply`
// evaluates it offline and the filter is run on sample audit entries with a minimal evaluator of
// the Logging query language (test/helpers/logging-filter.ts).
import fs from 'node:fs';
import path from 'node:path';
import { executionEnv, type LaunchRequest } from '../../../shared/launch/execution-env';
import { matchesLoggingFilter, parseLoggingFilter } from '../../helpers/logging-filter';
import { block, loadModules, moduleAt, resourceBody, TERRAFORM_ROOT, type TfModule } from '../../helpers/terraform';
import { TerraformModuleHarness } from '../../helpers/terraform-run';
import { describeWithTool } from '../../helpers/required-tools';

const MODULE = path.join(TERRAFORM_ROOT, 'modules/pullsecret-adapter/modules/run-job-overrides');
const ALLOW_LIST = path.join(TERRAFORM_ROOT, 'modules/pullsecret-adapter/run-job-overrides.json');
const NAMES = (JSON.parse(fs.readFileSync(ALLOW_LIST, 'utf8')) as { names: string[] }).names;
const JOB = 'pullsecret-job';

describe('the Logging query language evaluator (test/helpers/logging-filter.ts)', () => {
  const entry = { a: 'Hello', list: [{ name: 'X' }, { name: 'Y', ref: { key: 'k' } }], flag: true };

  it('gives NOT, then OR, then AND precedence, as the documentation spells it', () => {
    // "a" OR NOT "b" AND NOT "c" OR "d" is ("a" OR (NOT "b")) AND ((NOT "c") OR "d").
    expect(matchesLoggingFilter('a="hello" OR a="no" AND a="no" OR a="hello"', entry)).toBe(true);
    expect(matchesLoggingFilter('a="no" OR a="hello" AND a="no"', entry)).toBe(false);
    expect(matchesLoggingFilter('NOT a="no" a="hello"', entry)).toBe(true);
  });

  it('holds a restriction on a repeated field when any element satisfies it', () => {
    expect(matchesLoggingFilter('list.name="Y"', entry)).toBe(true);
    expect(matchesLoggingFilter('list.name=("Z" OR "X")', entry)).toBe(true);
    expect(matchesLoggingFilter('list.ref:*', entry)).toBe(true);
    expect(matchesLoggingFilter('list.missing:*', entry)).toBe(false);
    expect(matchesLoggingFilter('NOT list.name="X"', entry)).toBe(false);
  });

  it('compares with = regardless of case, with =~ case-sensitively and unanchored', () => {
    expect(matchesLoggingFilter('a="HELLO" AND flag=true', entry)).toBe(true);
    expect(matchesLoggingFilter('a=~"ell"', entry)).toBe(true);
    expect(matchesLoggingFilter('a=~"^hello$"', entry)).toBe(false);
  });

  it('orders numbers numerically and severities by rank', () => {
    const line = { severity: 'ERROR', jsonPayload: { n: 30, s: '1800' } };
    expect(matchesLoggingFilter('severity>=ERROR', line)).toBe(true);
    expect(matchesLoggingFilter('severity>=warning', line)).toBe(true);
    expect(matchesLoggingFilter('severity>ERROR', line)).toBe(false);
    expect(matchesLoggingFilter('jsonPayload.n>9', line)).toBe(true); // not "30" < "9" as text
    expect(matchesLoggingFilter('jsonPayload.n<=29', line)).toBe(false);
    expect(matchesLoggingFilter('jsonPayload.s>=1800', line)).toBe(true);
    expect(matchesLoggingFilter('jsonPayload.missing>0', line)).toBe(false);
  });

  it('refuses what it does not implement instead of judging it differently', () => {
    expect(() => parseLoggingFilter('a!="x"')).toThrow(/unsupported field path/);
    expect(() => parseLoggingFilter('a>>"x"')).toThrow(/cannot read|unsupported/);
    expect(() => matchesLoggingFilter('a>"x"', entry)).toThrow(/neither a number nor a severity/);
    expect(() => parseLoggingFilter('(a="x"')).toThrow(/expected \)/);
  });
});

const LAUNCH: LaunchRequest = {
  clusterId: 'cls-1',
  clusterName: 'prod',
  generation: 3,
  gcpProjectId: 'customer-project',
  namespace: 'clusters-cls-1',
  managementCluster: 'mgmt-2',
  operation: 'apply',
  attempt: 1,
  launchId: 'launch-1',
  pullSecret: { source: 'cluster-spec', specPath: 'spec.pullSecret.data', additionalSpecPath: 'a' },
};
const TRACE = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'v=1' };
type EnvVar = { name: string; value?: string; valueSource?: unknown; valueFrom?: unknown };

/** A RunJob Data Access audit entry, as Cloud Audit Logs writes one (AuditLog in protoPayload). */
function runJobEntry(
  env: EnvVar[],
  options: { job?: string; api?: 'v1' | 'v2'; method?: string; container?: Record<string, unknown> } = {},
) {
  const job = options.job ?? JOB;
  const v1 = options.api === 'v1';
  const name = v1 ? `namespaces/platform-project/jobs/${job}` : `projects/platform-project/locations/us-central1/jobs/${job}`;
  return {
    logName: 'projects/platform-project/logs/cloudaudit.googleapis.com%2Fdata_access',
    resource: { type: 'cloud_run_job', labels: { job_name: job, location: 'us-central1', project_id: 'platform-project' } },
    severity: 'NOTICE',
    protoPayload: {
      '@type': 'type.googleapis.com/google.cloud.audit.AuditLog',
      serviceName: 'run.googleapis.com',
      methodName: options.method ?? (v1 ? 'google.cloud.run.v1.Jobs.RunJob' : 'google.cloud.run.v2.Jobs.RunJob'),
      resourceName: name,
      authenticationInfo: { principalEmail: 'pullsecret-adapter@platform-project.iam.gserviceaccount.com' },
      authorizationInfo: [{ resource: name, permission: 'run.jobs.runWithOverrides', granted: true, permissionType: 'DATA_WRITE' }],
      request: {
        '@type': v1 ? 'type.googleapis.com/google.cloud.run.v1.RunJobRequest' : 'type.googleapis.com/google.cloud.run.v2.RunJobRequest',
        name,
        overrides: { containerOverrides: [{ env, ...options.container }] },
      },
    },
  };
}
/** The overrides the adapter really sends for a launch. */
const adapterEnv = (): EnvVar[] => Object.entries(executionEnv(LAUNCH, TRACE)).map(([name, value]) => ({ name, value }));

describeWithTool('terraform', 'terraform: the audit-log filter for unexpected overrides (evaluated by terraform, offline)', () => {
  let harness: TerraformModuleHarness;
  let filter: string;
  let regex: RegExp;

  beforeAll(() => {
    harness = new TerraformModuleHarness(MODULE, ['allowed_names', 'job_name']);
    const result = harness.apply({ allowed_names: NAMES, job_name: JOB });
    if (!result.ok) throw new Error(`terraform apply failed: ${result.diagnostics}`);
    const outputs = result.outputs as { audit_filter: string; unexpected_name_regex: string };
    filter = outputs.audit_filter;
    regex = new RegExp(outputs.unexpected_name_regex);
  });
  afterAll(() => harness?.dispose());

  it('does not match a RunJob with only the names the adapter sends (v2 and v1)', () => {
    expect(adapterEnv().length).toBeGreaterThan(10);
    expect(matchesLoggingFilter(filter, runJobEntry(adapterEnv()))).toBe(false);
    expect(matchesLoggingFilter(filter, runJobEntry(adapterEnv(), { api: 'v1' }))).toBe(false);
    expect(matchesLoggingFilter(filter, runJobEntry([]))).toBe(false);
  });

  it.each([
    ['NODE_OPTIONS', 'runs code as the job'],
    ['MANAGEMENT_CLUSTERS', 'an allowed name (MANAGEMENT_CLUSTER) extended'],
    ['MANAGEMENT_CLUSTERS_FILE', "another file of clusters: the job's token would go to its endpoints"],
    ['CLUSTER', 'a prefix of allowed names'],
    ['cluster_id', 'an allowed name in another case'],
    ['SECRET_MANAGER_EMULATOR_HOST', 'an emulator host'],
    ['HYPERFLEET_API_BASE_URL', 'a job definition variable'],
  ])('matches a RunJob that also sets %s (%s)', (name) => {
    const env = [...adapterEnv(), { name, value: 'x' }];
    expect(matchesLoggingFilter(filter, runJobEntry(env))).toBe(true);
    expect(matchesLoggingFilter(filter, runJobEntry(env, { api: 'v1' }))).toBe(true);
  });

  it('matches a secret reference as a value, and args, even with allowed names only', () => {
    const secret = adapterEnv().map((v) => (v.name === 'CLUSTER_ID' ? { name: v.name, valueSource: { secretKeyRef: { secret: 'hyperfleet-api-token', version: 'latest' } } } : v));
    expect(matchesLoggingFilter(filter, runJobEntry(secret))).toBe(true);
    const v1Secret = adapterEnv().map((v) => (v.name === 'CLUSTER_ID' ? { name: v.name, valueFrom: { secretKeyRef: { name: 'hyperfleet-api-token', key: 'latest' } } } : v));
    expect(matchesLoggingFilter(filter, runJobEntry(v1Secret, { api: 'v1' }))).toBe(true);
    expect(matchesLoggingFilter(filter, runJobEntry(adapterEnv(), { container: { args: ['version'] } }))).toBe(true);
    expect(matchesLoggingFilter(filter, runJobEntry(adapterEnv(), { container: { clearArgs: true } }))).toBe(true);
  });

  it('with operator_commands = ["doctor"] (the module call): lets an operator\'s doctor run through, nothing else', () => {
    const withDoctor = new TerraformModuleHarness(MODULE, ['allowed_names', 'job_name', 'operator_commands']);
    try {
      const result = withDoctor.apply({ allowed_names: NAMES, job_name: JOB, operator_commands: ['doctor'] });
      if (!result.ok) throw new Error(`terraform apply failed: ${result.diagnostics}`);
      const doctorFilter = (result.outputs as { audit_filter: string }).audit_filter;
      const args = (list: string[], env: EnvVar[] = []) => runJobEntry(env, { container: { args: list } });
      // gcloud run jobs execute JOB --args=doctor,--all-projects: no env, args naming doctor.
      expect(matchesLoggingFilter(doctorFilter, args(['doctor', '--all-projects']))).toBe(false);
      expect(matchesLoggingFilter(doctorFilter, args(['doctor']))).toBe(false);
      // Anything else still alerts: other args, a lookalike, doctor with an unexpected variable.
      expect(matchesLoggingFilter(doctorFilter, args(['run-job', 'pull-secret']))).toBe(true);
      expect(matchesLoggingFilter(doctorFilter, args(['doctors']))).toBe(true);
      expect(matchesLoggingFilter(doctorFilter, args(['doctor'], [{ name: 'NODE_OPTIONS', value: 'x' }]))).toBe(true);
      expect(matchesLoggingFilter(doctorFilter, runJobEntry([], { container: { clearArgs: true } }))).toBe(true);
      // And the adapter's own overrides still do not.
      expect(matchesLoggingFilter(doctorFilter, runJobEntry(adapterEnv()))).toBe(false);
    } finally {
      withDoctor.dispose();
    }
  });

  it("matches only RunJob on this module's job", () => {
    const env = [...adapterEnv(), { name: 'NODE_OPTIONS', value: 'x' }];
    expect(matchesLoggingFilter(filter, runJobEntry(env, { job: 'another-job' }))).toBe(false);
    expect(matchesLoggingFilter(filter, runJobEntry(env, { job: `${JOB}-2` }))).toBe(false);
    expect(matchesLoggingFilter(filter, runJobEntry(env, { method: 'google.cloud.run.v2.Jobs.UpdateJob' }))).toBe(false);
  });

  it('its expression matches exactly the names outside the list (each name, its prefixes, extensions and one-letter changes)', () => {
    for (const name of NAMES) expect({ name, unexpected: regex.test(name) }).toEqual({ name, unexpected: false });
    const near = NAMES.flatMap((name) => [
      ...Array.from({ length: name.length }, (_, i) => name.slice(0, i)).filter((p) => p !== ''),
      `${name}_`,
      `${name}S`,
      `X${name}`,
      ...Array.from({ length: name.length }, (_, i) => `${name.slice(0, i)}${name[i] === 'Q' ? 'Z' : 'Q'}${name.slice(i + 1)}`),
    ]).filter((candidate) => !NAMES.includes(candidate));
    expect(near.length).toBeGreaterThan(500);
    expect(near.filter((candidate) => !regex.test(candidate))).toEqual([]);
  });

  it('refuses names that would need escaping in the expression, naming the variable', () => {
    const result = harness.apply({ allowed_names: ['CLUSTER_ID', 'A.B'], job_name: JOB });
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toContain('allowed_names must be environment variable names');
  });
});

describe('terraform: how the module watches RunJob overrides (parsed HCL)', () => {
  let m: TfModule;
  beforeAll(async () => {
    m = moduleAt(await loadModules(), 'modules/pullsecret-adapter');
  });

  it('reads the allow-list from the same file as the adapter', () => {
    expect(m.modules.run_job_overrides).toMatchObject({
      source: './modules/run-job-overrides',
      allowed_names: '${jsondecode(file("${path.module}/run-job-overrides.json")).names}',
      job_name: '${local.job_name}',
    });
  });

  it("enables Cloud Run's DATA_WRITE audit logs (RunJob is a Data Access entry), unless the operator opts out", () => {
    const audit = resourceBody(m, 'google_project_iam_audit_config', 'run_data_write');
    expect(audit.service).toBe('run.googleapis.com');
    expect(block(audit, 'audit_log_config')).toEqual({ log_type: 'DATA_WRITE' });
    expect(String(audit.for_each)).toContain('var.monitoring.run_job_audit_logs');
    const monitoring = String(m.variables.monitoring?.type);
    expect(monitoring).toContain('run_job_audit_logs');
    expect(monitoring).toMatch(/run_job_audit_logs\s*=\s*optional\(bool,\s*true\)/);
  });

  it('counts matching entries by caller and alerts on any', () => {
    const metric = resourceBody(m, 'google_logging_metric', 'unexpected_run_job_overrides');
    expect(metric.filter).toBe('${module.run_job_overrides.audit_filter}');
    expect(metric.label_extractors).toEqual({ caller: 'EXTRACT(protoPayload.authenticationInfo.principalEmail)' });
    expect(metric.depends_on).toEqual(['${google_project_service.apis}']);
    const alert = resourceBody(m, 'google_monitoring_alert_policy', 'unexpected_run_job_overrides');
    const threshold = block(block(alert, 'conditions'), 'condition_threshold');
    expect(threshold.filter).toContain('google_logging_metric.unexpected_run_job_overrides["enabled"].name');
    expect(threshold.comparison).toBe('COMPARISON_GT');
    expect(threshold.threshold_value).toBe(0);
    expect(String(block(alert, 'documentation').content)).toContain('NODE_OPTIONS');
  });
});
