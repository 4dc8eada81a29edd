import fs from 'node:fs';
import path from 'node:path';
import { adapterEnvSchema, loadAdapterConfig } from '../../../functions/adapter/config/config';
import { executionEnv } from '../../../shared/launch/execution-env';
import { jobEnvSchema, loadJobConfig } from '../../../functions/pull-secret-job/config/config';
import { doctorEnvSchema } from '../../../functions/pull-secret-job/doctor/doctor-config';
import { SUBSCRIPTIONS, TOPICS } from '../../../emulators/pullsecret/stack/layout';
import { loadReporterConfig, reporterEnvSchema } from '../../../functions/reporter/config/config';
import { loadModules, loadProviderSchemas, references, TERRAFORM_ROOT, unknownNames, type TfModule } from '../../helpers/terraform';
import { configBlocks, providerProblems, snapshotLabel } from '../../helpers/terraform-providers';

// Values the Terraform expressions produce in a real deployment, per variable name.
const SAMPLE_VALUES: Record<string, string> = {
  HYPERFLEET_API_BASE_URL: 'https://hyperfleet-api.example.com',
  HYPERFLEET_API_VERSION: 'v1',
  HYPERFLEET_API_TIMEOUT: '10s',
  HYPERFLEET_API_RETRY_ATTEMPTS: '3',
  HYPERFLEET_API_AUTH_TOKEN_PATH: '/var/secrets/hyperfleet/token',
  HYPERFLEET_API_AUDIENCE: 'https://hyperfleet-api.example.com',
  HYPERFLEET_API_SYSTEM_HEADER: 'X-HyperFleet-System',
  HYPERFLEET_API_ORG_HEADER: 'X-HyperFleet-Org',
  HYPERFLEET_API_ORG: 'acme',
  PULL_SECRET_JOB: 'projects/platform-project/locations/us-central1/jobs/pullsecret-job',
  RESYNC_INTERVAL: '36h',
  BATCH_CLUSTERS_PER_TASK: '500',
  LAUNCH_QUEUE_PER_MANAGEMENT_CLUSTER: 'true',
  BATCH_TASK_TIMEOUT: '7200s',
  DRIFT_REPAIR_BACKOFF: '5m',
  RESYNC_SPREAD: '6h',
  DRIFT_REPORTED_CONDITION: '"hypershift" in statuses',
  EXECUTION_TIMEOUT: '900s',
  RETRY_BACKOFF_BASE: '30s',
  RETRY_BACKOFF_MAX: '30m',
  PERMANENT_FAILURE_RETRY_INTERVAL: '1h',
  STATUS_HEARTBEAT_INTERVAL: '5m',
  LAUNCH_QUEUE: 'projects/platform-project/locations/us-central1/queues/pullsecret-launches',
  LAUNCHER_SERVICE_ACCOUNT: 'pullsecret-launcher@platform-project.iam.gserviceaccount.com',
  PULL_SECRET_SPEC_PATH: 'spec.pullSecret.data',
  PULL_SECRET_ADDITIONAL_SPEC_PATH: 'spec.pullSecret.additional',
  PRECONDITIONS: '[{"name":"always","expression":"true"}]',
  DEFAULT_PULL_SECRET_VERSION: 'projects/platform-project/secrets/default-pull-secret/versions/latest',
  LOG_LEVEL: 'info',
  LOG_FORMAT: 'json',
  GOOGLE_CLOUD_PROJECT: 'platform-project',
  RESULTS_TOPIC: 'projects/platform-project/topics/pullsecret-job-results',
  MANAGEMENT_CLUSTER_ENDPOINT: 'https://34.123.45.67',
  MANAGEMENT_CLUSTER_CA_CERT: Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64'),
  ON_DELETE: 'delete',
  TOMBSTONE_TTL: '4200s',
  REPLICATION_POLICY: 'automatic',
  SECRET_VERSION_RETENTION: '5',
  KMS_KEY_NAME: 'projects/kms-project/locations/global/keyRings/ring/cryptoKeys/key',
  ALLOWED_REPLICATION_LOCATIONS: 'us-central1,us-east1',
  COPY_PLATFORM_DEFAULT_TO_TENANT: 'true',
  EVENT_MAX_AGE: '1h',
  EVENT_MAX_FAILURES: '10',
  DELIVERY_BUDGET: '8s',
  // modules/tracing (tracing_enabled = true, the default)
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: '0.25',
  OTEL_SERVICE_NAME: 'pullsecret-job',
};

// The retry bound agreed with the code side of issue 16 (adapter and reporter): optional in the
// code, always set by Terraform. Until the code reads them they are tolerated here by name only.
const RETRY_BOUND_VARIABLES = ['EVENT_MAX_AGE', 'EVENT_MAX_FAILURES'];

// The launch queue (launch-queue.tf): the adapter creates its launch tasks in LAUNCH_QUEUE with an
// OAuth token for LAUNCHER_SERVICE_ACCOUNT. Always set by Terraform, and held to adapterEnvSchema
// like every other name.
const LAUNCH_QUEUE_VARIABLES = ['LAUNCH_QUEUE', 'LAUNCHER_SERVICE_ACCOUNT'];
// What the queue replaced: Terraform must no longer set them.
const REMOVED_LAUNCH_VARIABLES = ['LAUNCH_SETTLE_INTERVAL', 'LAUNCH_RATE_PER_MINUTE', 'LAUNCH_RATE_INSTANCES', 'LAUNCH_RATE_MAX_WAIT'];

// Arguments of a module call that are Terraform's, not the module's variables.
const MODULE_META_ARGUMENTS = ['source', 'version', 'count', 'for_each', 'providers', 'depends_on'];

describe('terraform/, checked offline', () => {
  let modules: TfModule[];
  const schemas = loadProviderSchemas();
  const schema = schemas.google!;
  const moduleDir = path.join(TERRAFORM_ROOT, 'modules/pullsecret-adapter');
  const adapterModule = () => modules.find((m) => m.dir === moduleDir)!;

  beforeAll(async () => {
    modules = await loadModules();
  });

  it('finds the module and the example root', () => {
    expect(modules.map((m) => path.relative(TERRAFORM_ROOT, m.dir)).sort()).toEqual(['examples/basic', 'modules/pullsecret-adapter', 'modules/pullsecret-adapter/modules/dashboard', 'modules/pullsecret-adapter/modules/gke-workload-identity', 'modules/pullsecret-adapter/modules/management-clusters', 'modules/pullsecret-adapter/modules/run-job-overrides', 'modules/pullsecret-adapter/modules/tracing', 'modules/pullsecret-cluster-rbac', 'modules/pullsecret-namespace-layout', 'modules/pullsecret-tenant-project', 'modules/pullsecret-tenant-project/modules/bindings', 'modules/pullsecret-tenant-role']);
    expect(adapterModule().resources.length).toBeGreaterThan(30);
  });

  // Each block is checked against the provider it uses: google-beta's snapshot for `provider = google-beta`.
  it(`uses only resource types, arguments and blocks that the providers have, none read-only (snapshots: ${Object.values(schemas).map(snapshotLabel).join(', ')})`, () => {
    expect(Object.keys(schemas).sort()).toEqual(['google', 'google-beta', 'kubernetes', 'random', 'time']);
    expect(schemas.google!.provider.version).toMatch(/^7\./);
    const problems = modules.flatMap((m) => [
      ...providerProblems(m, schemas),
      ...configBlocks(m, schemas).flatMap((b) =>
        b.schema ? unknownNames(b.body, b.schema, b.where) : [`${b.where}: ${b.provider} has no ${b.kind === 'resources' ? 'resource' : 'data source'} type ${b.type}`],
      ),
    ]);
    expect(problems).toEqual([]);
    // Both delivery modes and the cluster side are in what was checked.
    const types = new Set(modules.flatMap((m) => m.resources.map((r) => r.type)));
    for (const type of ['google_eventarc_trigger', 'google_pubsub_subscription', 'terraform_data', 'time_sleep', 'random_id', 'kubernetes_cluster_role_v1', 'kubernetes_role_binding_v1', 'kubernetes_cluster_role_binding_v1', 'kubernetes_manifest']) expect(types).toContain(type);
  });

  it('the kubernetes snapshot knows the provider arguments the example configures it with', () => {
    const config = schemas.kubernetes!.provider_config!;
    for (const argument of ['host', 'cluster_ca_certificate', 'token']) expect(config.attributes).toContain(argument);
    expect(unknownNames({ metadata: [{ name: 'x', namspace: 'y' }] }, schemas.kubernetes!.resources.kubernetes_role_binding_v1!, 'rb')).toEqual(['rb.metadata: unknown argument or block "namspace"']);
  });

  it('the checker itself catches a misspelt argument and an unknown nested block', () => {
    const subscription = schema.resources.google_pubsub_subscription!;
    expect(unknownNames({ name: 'x', topic: 't', push_config: [{ push_endpont: 'x' }], retry: [{}] }, subscription, 'sub')).toEqual([
      'sub.push_config: unknown argument or block "push_endpont"',
      'sub: unknown argument or block "retry"',
    ]);
  });

  it('resolves every var., local., module., data. and resource reference, and uses every declared variable', () => {
    const problems: string[] = [];
    for (const m of modules) {
      const refs = references(m.strings);
      // The parser saw the expressions: a big module references many things, a small one all its variables.
      expect(refs.resources.size + refs.variables.size).toBeGreaterThanOrEqual(m.resources.length > 10 ? 21 : Math.min(4, Object.keys(m.variables).length));
      const declaredResources = new Set(m.resources.map((r) => `${r.type}.${r.name}`));
      const declaredData = new Set(m.data.map((d) => `${d.type}.${d.name}`));
      for (const v of refs.variables) if (!(v in m.variables)) problems.push(`${m.dir}: var.${v} is not declared`);
      for (const l of refs.locals) if (!(l in m.locals)) problems.push(`${m.dir}: local.${l} is not declared`);
      for (const d of refs.data) if (!declaredData.has(d)) problems.push(`${m.dir}: data.${d} is not declared`);
      for (const r of refs.resources) if (!declaredResources.has(r)) problems.push(`${m.dir}: ${r} is not declared`);
      for (const v of Object.keys(m.variables)) if (!refs.variables.has(v)) problems.push(`${m.dir}: variable ${v} is never used`);
      for (const ref of refs.modules) {
        const [name, output] = ref.split('.') as [string, string];
        const call = m.modules[name];
        if (!call) {
          problems.push(`${m.dir}: module.${name} is not declared`);
          continue;
        }
        const target = modules.find((t) => t.dir === path.resolve(m.dir, String(call.source)));
        if (!target?.outputs[output]) problems.push(`${m.dir}: module.${name}.${output} is not an output of ${String(call.source)}`);
      }
      for (const [name, call] of Object.entries(m.modules)) {
        const target = modules.find((t) => t.dir === path.resolve(m.dir, String(call.source)));
        if (!target) {
          problems.push(`${m.dir}: module ${name} source ${String(call.source)} not found`);
          continue;
        }
        for (const argument of Object.keys(call)) if (!MODULE_META_ARGUMENTS.includes(argument) && !(argument in target.variables)) problems.push(`${m.dir}: module ${name} passes unknown variable ${argument}`);
        for (const [variable, definition] of Object.entries(target.variables)) if (!('default' in definition) && !(variable in call)) problems.push(`${m.dir}: module ${name} does not set required variable ${variable}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('grants no owner or editor, nothing to allUsers, and Secret Manager rights only with a condition', () => {
    const all = modules.flatMap((x) => x.strings).join('\n');
    expect(all).not.toMatch(/roles\/(owner|editor)\b/);
    expect(all).not.toMatch(/allUsers|allAuthenticatedUsers/);
    // Project- or folder-wide Secret Manager rights exist only in the tenant module, each conditional.
    const broadGrants = modules.flatMap((m) => m.resources.filter((r) => ['google_project_iam_member', 'google_project_iam_binding', 'google_folder_iam_member'].includes(r.type)).map((r) => ({ ...r, dir: m.dir })));
    const secretGrants = broadGrants.filter((grant) => /secretmanager|module\.bindings\.bindings/i.test(`${String(grant.body.role)} ${String(grant.body.for_each)}`));
    expect(secretGrants.map((g) => `${path.relative(TERRAFORM_ROOT, g.dir)}:${g.type}.${g.name}`).sort()).toEqual([
      'modules/pullsecret-tenant-project:google_folder_iam_member.tenant',
      'modules/pullsecret-tenant-project:google_project_iam_member.tenant',
    ]);
    for (const grant of secretGrants) expect({ grant: grant.name, condition: Boolean(grant.body.condition) }).toEqual({ grant: grant.name, condition: true });
    const customRoles = modules.flatMap((m) => m.resources.filter((r) => r.type.endsWith('_iam_custom_role')));
    // The job's Secret Manager role (organization, or per project as a fallback), the doctor's,
    // the adapter's two reads (executions on the job, its tasks on the launch queue), the fleet
    // operators' two (the queues, and listing them), and the job's read of a queue's state.
    expect(customRoles.map((r) => `${r.type}.${r.name}`).sort()).toEqual([
      'google_organization_iam_custom_role.secret_manager',
      'google_project_iam_custom_role.doctor',
      'google_project_iam_custom_role.execution_reader',
      'google_project_iam_custom_role.fleet_operator',
      'google_project_iam_custom_role.fleet_operator_list',
      'google_project_iam_custom_role.launch_tasks',
      'google_project_iam_custom_role.queue_state',
      'google_project_iam_custom_role.secret_manager',
    ]);
    expect(customRoles.find((r) => r.name === 'doctor')!.body.permissions).toEqual(['eventarc.triggers.get']);
    for (const role of customRoles) expect(JSON.stringify(role.body.permissions)).not.toMatch(/IamPolicy|secrets\.list/);
  });

  it('grants Cloud Run job rights on the job only (no project-wide Cloud Run role): the launcher runs it, the adapter and reporter read it', () => {
    const m = adapterModule();
    const runRoles = m.resources.filter((r) => /^roles\/run\.(viewer|developer|admin|jobsExecutor)/.test(String(r.body.role)));
    for (const grant of runRoles) expect({ grant: grant.name, type: grant.type }).toEqual({ grant: grant.name, type: 'google_cloud_run_v2_job_iam_member' });
    const viewer = m.resources.find((r) => r.type === 'google_cloud_run_v2_job_iam_member' && r.body.role === 'roles/run.viewer');
    expect(Object.keys(viewer?.body.for_each as Record<string, unknown>).sort()).toEqual(['reporter']);
    const onJob = m.resources.filter((r) => r.type === 'google_cloud_run_v2_job_iam_member').map((r) => r.name).sort();
    expect(onJob).toEqual(['adapter_reads_executions', 'launcher_runs_job', 'reads_executions']);
  });

  it('keeps the functions private: internal ingress, invoked only by the push invoker or each trigger\'s own account', () => {
    const m = adapterModule();
    const functions = m.resources.filter((r) => r.type === 'google_cloudfunctions2_function');
    expect(functions.map((f) => f.name).sort()).toEqual(['adapter', 'reporter']);
    for (const fn of functions) {
      const service = (fn.body.service_config as Record<string, unknown>[])[0]!;
      expect(service.ingress_settings).toBe('ALLOW_INTERNAL_ONLY');
      expect((fn.body.build_config as Record<string, unknown>[])[0]!.runtime).toBe('nodejs22');
    }
    const invokers = m.resources.filter((r) => String(r.body.role).includes('run.invoker') || String(r.body.role).includes('cloudfunctions.invoker'));
    expect(invokers.map((r) => [r.name, r.body.member])).toEqual([
      ['invoker', 'serviceAccount:${google_service_account.invoker[0].email}'],
      ['trigger_invoker', 'serviceAccount:${google_service_account.trigger[each.key].email}'],
    ]);
    // Each grant exists in one mode only, and the trigger account is granted on its own function.
    expect(invokers.map((r) => String(r.body.for_each).startsWith('${local.eventarc ?'))).toEqual([true, true]);
    expect(String(invokers[1]!.body.for_each)).toMatch(/adapter\s*=\s*google_cloudfunctions2_function\.adapter\.name[\s\S]*reporter\s*=\s*google_cloudfunctions2_function\.reporter\.name/);
    expect(m.resources.filter((r) => /cloudfunctions2_function_iam/.test(r.type))).toEqual([]);
  });

  it('wires three push subscriptions with OIDC, retries and a dead-letter topic after 5 attempts', () => {
    const m = adapterModule();
    const push = m.resources.find((r) => r.type === 'google_pubsub_subscription' && r.name === 'push')!;
    expect(push.body.for_each).toBe('${local.subscriptions}');
    expect(Object.keys(m.locals)).toContain('subscriptions');
    expect((push.body.dead_letter_policy as Record<string, unknown>[])[0]).toEqual({ dead_letter_topic: '${google_pubsub_topic.dead_letter[each.key].id}', max_delivery_attempts: '${var.delivery.max_delivery_attempts}' });
    expect((push.body.push_config as Record<string, unknown>[])[0]!.oidc_token).toBeTruthy();
    expect(String(m.variables.delivery?.type)).toMatch(/max_delivery_attempts\s*=\s*optional\(number,\s*5\)/);
    const sink = m.resources.find((r) => r.type === 'google_logging_project_sink')!;
    expect(String(sink.body.filter)).toContain('protoPayload.methodName=\\"/Jobs.RunJob\\"');
    expect(String(sink.body.filter)).toContain('resource.type=\\"cloud_run_job\\"');
  });

  /** The env var names a local's expression sets (its own keys and those of locals and module outputs it merges). */
  const envKeys = (m: TfModule, local: string): string[] => {
    const value = m.locals[local];
    // A plain object literal is parsed as an object; an expression (merge(...)) as a string.
    if (value !== null && typeof value === 'object') return Object.keys(value).sort();
    const expression = String(value ?? '');
    const own = [...expression.matchAll(/\b([A-Z][A-Z0-9_]{2,})\s*=/g)].map((match) => match[1]!);
    const merged = [...expression.matchAll(/\blocal\.([a-z_]+_env)\b/g)].flatMap((match) => envKeys(m, match[1]!));
    // module.NAME.job_env: the same-named local of that module (management-clusters' job_env).
    const fromModules = [...expression.matchAll(/\bmodule\.([a-z_]+)\.([a-z_]+_env)\b/g)].flatMap((match) => {
      const target = modules.find((t) => t.dir === path.resolve(m.dir, String(m.modules[match[1]!]?.source)))!;
      return envKeys(target, match[2]!);
    });
    return [...new Set([...own, ...merged, ...fromModules])].sort();
  };
  const sample = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, SAMPLE_VALUES[k] ?? `missing sample for ${k}`]));

  it.each([
    ['adapter', 'adapter_env', adapterEnvSchema.shape, (env: Record<string, string>) => loadAdapterConfig(env)],
    ['reporter', 'reporter_env', reporterEnvSchema.shape, (env: Record<string, string>) => loadReporterConfig(env)],
  ])('sets every variable the %s reads at start, and only variables it reads', (_name, local, shape, load) => {
    const keys = envKeys(adapterModule(), local);
    expect(keys).toEqual(expect.arrayContaining(RETRY_BOUND_VARIABLES));
    expect(keys.filter((k) => !(k in shape) && !RETRY_BOUND_VARIABLES.includes(k))).toEqual([]);
    const withAllOptional = sample(keys);
    const minimal = sample(keys.filter((k) => !['HYPERFLEET_API_AUTH_TOKEN_PATH', 'HYPERFLEET_API_AUDIENCE', 'PRECONDITIONS', 'DEFAULT_PULL_SECRET_VERSION', 'HYPERFLEET_API_ORG', 'RESYNC_SPREAD', 'DRIFT_REPORTED_CONDITION'].includes(k)));
    expect(() => load(minimal)).not.toThrow();
    expect(() => load({ ...withAllOptional, HYPERFLEET_API_AUDIENCE: '' })).not.toThrow();
  });

  it('passes the adapter its launch queue and launcher, and none of the launch-rate settings the queue replaced', () => {
    const keys = envKeys(adapterModule(), 'adapter_env');
    expect(keys).toEqual(expect.arrayContaining(LAUNCH_QUEUE_VARIABLES));
    expect(keys.filter((k) => REMOVED_LAUNCH_VARIABLES.includes(k))).toEqual([]);
    const expression = String(adapterModule().locals.adapter_env);
    expect(expression).toMatch(/LAUNCH_QUEUE\s*=\s*google_cloud_tasks_queue\.launches\.id/);
    expect(expression).toMatch(/LAUNCHER_SERVICE_ACCOUNT\s*=\s*google_service_account\.launcher\.email/);
    expect(envKeys(adapterModule(), 'reporter_env').filter((k) => k.startsWith('LAUNCH'))).toEqual([]);
  });

  // Cloud Run's container contract reserves these names ("cannot be set"): K_* and PORT on services,
  // CLOUD_RUN_* on jobs (https://cloud.google.com/run/docs/container-contract#env-vars). A function
  // once carried CLOUD_RUN_JOB; the job's own CLOUD_RUN_JOB is Cloud Run's, read, never set.
  const RESERVED = /^(PORT|K_SERVICE|K_REVISION|K_CONFIGURATION|CLOUD_RUN_[A-Z_]+)$/;
  it.each(['adapter_env', 'reporter_env', 'job_env'])('sets no name Cloud Run reserves in %s', (local) => {
    const keys = envKeys(adapterModule(), local);
    expect(keys.length).toBeGreaterThan(5);
    expect(keys.filter((k) => RESERVED.test(k))).toEqual([]);
  });

  it('gives the job, with the adapter\'s per-execution overrides, everything it reads at start; never a pull secret', () => {
    const keys = envKeys(adapterModule(), 'job_env');
    expect(keys).not.toContain('PULL_SECRET_DATA');
    // A run reads jobEnvSchema's variables; pull-secret doctor (the same execution environment)
    // also reads its own few (SENTINEL_TOPIC, DEFAULT_PULL_SECRET_VERSION).
    expect(keys.filter((k) => !(k in jobEnvSchema.shape) && !(k in doctorEnvSchema.shape))).toEqual([]);
    expect(keys).toEqual(expect.arrayContaining(['SENTINEL_TOPIC']));
    const overrides = executionEnv({
      clusterId: 'cls-1',
      clusterName: 'prod',
      generation: 3,
      gcpProjectId: 'customer-project',
      namespace: 'clusters-cls-1',
      operation: 'apply',
      attempt: 1,
      launchId: '0b6f4a52-6b1e-4c61-9d49-6f3f0d3a1b2c',
      pullSecret: { source: 'cluster-spec', specPath: 'spec.pullSecret.data', additionalSpecPath: 'spec.pullSecret.additional' },
    });
    expect(Object.keys(overrides).filter((k) => !(k in jobEnvSchema.shape))).toEqual([]);
    // MANAGEMENT_CLUSTERS_FILE (the mounted map) and the deprecated single-cluster variables are alternatives;
    // the map form is loaded in management-clusters.test.ts from what Terraform renders.
    expect(keys).toEqual(expect.arrayContaining(['MANAGEMENT_CLUSTERS_FILE', 'DEFAULT_MANAGEMENT_CLUSTER', 'MANAGEMENT_CLUSTER_ENDPOINT']));
    expect(keys).not.toContain('MANAGEMENT_CLUSTERS');
    const base = sample(keys.filter((k) => !['HYPERFLEET_API_AUTH_TOKEN_PATH', 'HYPERFLEET_API_AUDIENCE', 'SECRET_VERSION_RETENTION', 'KMS_KEY_NAME', 'MANAGEMENT_CLUSTER_CA_CERT', 'HYPERFLEET_API_ORG', 'MANAGEMENT_CLUSTERS_FILE', 'DEFAULT_MANAGEMENT_CLUSTER'].includes(k)));
    const config = loadJobConfig({ ...base, ...overrides, CLOUD_RUN_EXECUTION: 'pullsecret-job-abc12' });
    expect(config.kubernetes?.access).toEqual({ kind: 'google', endpoint: SAMPLE_VALUES.MANAGEMENT_CLUSTER_ENDPOINT });
    expect(config.pullSecretSource).toEqual({ kind: 'cluster-spec', specPath: 'spec.pullSecret.data' });
    expect(config.resultsTopic).toBe(SAMPLE_VALUES.RESULTS_TOPIC);
    // The sample's global KMS key serves automatic replication only: not with per-cluster regions.
    expect(loadJobConfig({ ...sample(keys.filter((k) => !['MANAGEMENT_CLUSTERS_FILE', 'DEFAULT_MANAGEMENT_CLUSTER', 'ALLOWED_REPLICATION_LOCATIONS'].includes(k))), ...overrides, OPERATION: 'delete', HYPERFLEET_API_AUDIENCE: '' }).operation).toBe('delete');
  });
});

describe('the local stack and Terraform use the same Pub/Sub names', () => {
  // With the default name_prefix, so a developer sees locally what operators see in GCP.
  const read = (file: string) =>
    fs.readFileSync(path.join(TERRAFORM_ROOT, 'modules/pullsecret-adapter', file), 'utf8');
  const pubsubTf = read('pubsub.tf');
  const variablesTf = read('variables.tf');
  const defaultOf = (variable: string) =>
    new RegExp(`variable "${variable}"[\\s\\S]*?default\\s*=\\s*"([^"]+)"`).exec(variablesTf)?.[1];
  const prefix = defaultOf('name_prefix');
  // `name = "..."` whatever terraform fmt's alignment.
  const nameAssignment = (value: string) => new RegExp(`^\\s+name\\s+= ${value.replace(/[$.{}]/g, (c) => `\\${c}`)}$`, 'm');

  it.each(Object.entries(SUBSCRIPTIONS))('subscription %s', (key, local) => {
    expect(pubsubTf).toMatch(new RegExp(`^\\s{4}${key} = \\{`, 'm'));
    expect(pubsubTf).toMatch(nameAssignment('"${var.name_prefix}-${each.key}"'));
    expect(pubsubTf).toMatch(nameAssignment('"${var.name_prefix}-${each.key}-dead-letter"'));
    expect(local.name).toBe(`${prefix}-${key}`);
    expect(local.deadLetter).toBe(`${prefix}-${key}-dead-letter`);
  });

  it('topics', () => {
    expect(pubsubTf).toMatch(nameAssignment('"${var.name_prefix}-job-results"'));
    expect(pubsubTf).toMatch(nameAssignment('"${var.name_prefix}-execution-finished"'));
    // The fleet-requests topic lives with its publishers' grants (fleet-requests.tf); its route is in pubsub.tf.
    expect(read('fleet-requests.tf')).toMatch(nameAssignment('"${var.name_prefix}-fleet-requests"'));
    expect(pubsubTf).toMatch(/^\s{4}fleet = \{\n\s+topic\s+= google_pubsub_topic\.fleet_requests\.id\n\s+function = "adapter"/m);
    expect(TOPICS.fleet).toBe(`${prefix}-fleet-requests`);
    expect(TOPICS.results).toBe(`${prefix}-job-results`);
    expect(TOPICS.finished).toBe(`${prefix}-execution-finished`);
    expect(TOPICS.sentinel).toBe(defaultOf('sentinel_topic'));
  });
});
