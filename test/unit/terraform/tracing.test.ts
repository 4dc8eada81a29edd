// Issue 18, Terraform side. The pure module modules/pullsecret-adapter/modules/tracing decides what
// tracing adds (APIs, roles, OTEL_* variables); it needs no provider, so real `terraform apply`
// evaluates it offline, validation included. How the main module applies it (grants per identity,
// APIs, each component's environment) is checked on the parsed HCL.
import path from 'node:path';
import { loadReporterConfig } from '../../../functions/reporter/config/config';
import { loadJobConfig } from '../../../functions/pull-secret-job/config/config';
import { loadTracingConfig } from '../../../shared/tracing/config';
import { loadModules, moduleAt, resourceBody, TERRAFORM_ROOT, type TfModule } from '../../helpers/terraform';
import { TerraformModuleHarness } from '../../helpers/terraform-run';
import { describeWithTool } from '../../helpers/required-tools';

const MODULE = path.join(TERRAFORM_ROOT, 'modules/pullsecret-adapter/modules/tracing');

interface TracingOutputs {
  apis: string[];
  roles: string[];
  adapter_env: Record<string, string>;
  reporter_env: Record<string, string>;
  job_env: Record<string, string>;
}

describeWithTool('terraform', 'terraform: what tracing adds (evaluated by terraform, offline)', () => {
  let harness: TerraformModuleHarness;
  const outputs = (values: Record<string, unknown>): TracingOutputs => {
    const result = harness.apply(values);
    if (!result.ok) throw new Error(`terraform apply failed: ${result.diagnostics}`);
    return result.outputs as unknown as TracingOutputs;
  };

  beforeAll(() => {
    harness = new TerraformModuleHarness(MODULE, ['enabled', 'sampler_ratio']);
  });
  afterAll(() => harness?.dispose());

  it('enabled: both APIs, both roles, and each component exports with the parent-based ratio sampler under its own name', () => {
    const out = outputs({ enabled: true, sampler_ratio: 0.25 });
    expect(out.apis).toEqual(['cloudtrace.googleapis.com', 'telemetry.googleapis.com']);
    expect(out.roles).toEqual(['roles/cloudtrace.agent', 'roles/telemetry.tracesWriter']);
    const common = { OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' };
    expect(out.adapter_env).toEqual({ ...common, OTEL_SERVICE_NAME: 'pullsecret-adapter' });
    expect(out.reporter_env).toEqual({ ...common, OTEL_SERVICE_NAME: 'pullsecret-reporter' });
    expect(out.job_env).toEqual({ ...common, OTEL_SERVICE_NAME: 'pullsecret-job' });
  });

  it('sets variables the code reads as meant: each component exports, samples new traces at the ratio and follows its parent', () => {
    const out = outputs({ enabled: true, sampler_ratio: 0.25 });
    const expected = { exporting: true, sampler: 'parentbased_traceidratio', samplerRatio: 0.25 };
    expect(loadTracingConfig(out.adapter_env, 'unused')).toMatchObject({ ...expected, serviceName: 'pullsecret-adapter' });
    const job = loadJobConfig({ CLUSTER_ID: 'cls-1', GCP_PROJECT_ID: 'customer-project', OPERATION: 'delete', ...out.job_env });
    expect(job.tracing).toMatchObject({ ...expected, serviceName: 'pullsecret-job' });
    const reporter = loadReporterConfig({ HYPERFLEET_API_BASE_URL: 'https://hyperfleet.example.com', PULL_SECRET_JOB: 'projects/p/locations/r/jobs/j', ...out.reporter_env });
    expect(reporter.tracing).toMatchObject({ ...expected, serviceName: 'pullsecret-reporter' });
    // Disabled: nothing set, so the code's defaults hold (no export, no SDK loaded).
    expect(loadTracingConfig(outputs({ enabled: false, sampler_ratio: 1 }).job_env, 'pullsecret-job').exporting).toBe(false);
  });

  it('disabled: no API, no grant, no tracing variable at all (the code then neither loads the SDK nor exports)', () => {
    expect(outputs({ enabled: false, sampler_ratio: 1 })).toEqual({ apis: [], roles: [], adapter_env: {}, reporter_env: {}, job_env: {} });
  });

  it('accepts the ratio bounds 0 and 1 and writes them as the sampler reads them', () => {
    expect(outputs({ enabled: true, sampler_ratio: 0 }).job_env.OTEL_TRACES_SAMPLER_ARG).toBe('0');
    expect(outputs({ enabled: true, sampler_ratio: 1 }).adapter_env.OTEL_TRACES_SAMPLER_ARG).toBe('1');
  });

  it.each([-0.1, 1.5])('refuses the sampler ratio %p, naming the variable and the range', (ratio) => {
    const result = harness.apply({ enabled: true, sampler_ratio: ratio });
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toContain('tracing_sampler_ratio must be between 0 and 1');
  });
});

describe('terraform: how the module applies tracing (parsed HCL)', () => {
  let adapter: TfModule;
  let example: TfModule;

  beforeAll(async () => {
    const modules = await loadModules();
    adapter = moduleAt(modules, 'modules/pullsecret-adapter');
    example = moduleAt(modules, 'examples/basic');
  });

  it('passes tracing_enabled and tracing_sampler_ratio to the pure module; on by default, every new trace sampled', () => {
    expect(adapter.modules.tracing).toEqual({
      source: './modules/tracing',
      enabled: '${var.tracing_enabled}',
      sampler_ratio: '${var.tracing_sampler_ratio}',
    });
    expect(adapter.variables.tracing_enabled).toMatchObject({ type: '${bool}', default: true, nullable: false });
    expect(adapter.variables.tracing_sampler_ratio).toMatchObject({ type: '${number}', default: 1, nullable: false });
  });

  it('grants each tracing role to the adapter, reporter and job identities, and to nobody else', () => {
    expect(resourceBody(adapter, 'google_project_iam_member', 'tracing')).toEqual({
      for_each: expect.stringMatching(/setproduct\(keys\(local\.runtime_identities\), module\.tracing\.roles\)/),
      project: '${var.project_id}',
      role: '${each.value.role}',
      member: 'serviceAccount:${local.runtime_identities[each.value.identity]}',
    });
    expect(adapter.locals.runtime_identities).toEqual({
      adapter: '${google_service_account.adapter.email}',
      reporter: '${google_service_account.reporter.email}',
      job: '${google_service_account.job.email}',
    });
    // The tracing roles appear nowhere else (not on the invoker, reader or build accounts).
    const tracingRoles = adapter.resources.filter((r) => /cloudtrace|telemetry/.test(String(r.body.role)));
    expect(tracingRoles).toEqual([]);
  });

  it('enables the tracing APIs where the module enables the others, and merges each component\'s OTEL_* variables', () => {
    expect(String(adapter.locals.apis)).toMatch(/^\$\{setunion\(module\.tracing\.apis, \[/);
    expect(String(adapter.locals.adapter_env)).toContain('module.tracing.adapter_env');
    expect(String(adapter.locals.reporter_env)).toContain('module.tracing.reporter_env');
    expect(String(adapter.locals.job_env)).toContain('module.tracing.job_env');
  });

  it('lets the example root set both variables, with the module\'s defaults', () => {
    expect(example.modules.pullsecret_adapter).toMatchObject({
      tracing_enabled: '${var.tracing_enabled}',
      tracing_sampler_ratio: '${var.tracing_sampler_ratio}',
    });
    expect(example.variables.tracing_enabled?.default).toBe(true);
    expect(example.variables.tracing_sampler_ratio?.default).toBe(1);
  });
});
