// Issue 16 §2, "a first terraform apply that succeeds": each review finding is asserted on the parsed
// HCL of the module, so none can silently regress. Only terraform fmt runs here (no provider
// download), so these are the structural guarantees that plan/apply would otherwise reveal late.
import { loadModules, type TfModule, block, moduleAt, type TfBody } from '../../helpers/terraform';

type Body = TfBody;
const dependsOn = (body: Body): string[] =>
  ((body.depends_on as string[] | undefined) ?? []).map((d) => d.replace(/^\$\{|\}$/g, ''));

describe('terraform/modules/pullsecret-adapter: the first apply on an empty project', () => {
  let m: TfModule;
  const resources = (type: string) => m.resources.filter((r) => r.type === type);
  /** The two functions, counted first: a loop over an empty list would assert nothing. */
  const functions = () => {
    const found = resources('google_cloudfunctions2_function');
    expect(found.map((f) => f.name).sort()).toEqual(['adapter', 'reporter']);
    return found;
  };
  const resource = (type: string, name: string) => {
    const found = m.resources.find((r) => r.type === type && r.name === name);
    if (!found) throw new Error(`${type}.${name} is not in the module`);
    return found.body;
  };

  beforeAll(async () => {
    const modules = await loadModules();
    m = moduleAt(modules, 'modules/pullsecret-adapter');
  });

  it('mounts the HyperFleet token only after its accessor grant exists (both functions and the job)', () => {
    const grant = 'google_secret_manager_secret_iam_member.hyperfleet_token';
    for (const fn of functions()) expect(dependsOn(fn.body)).toContain(grant);
    expect(dependsOn(resource('google_cloud_run_v2_job', 'pull_secret'))).toContain(grant);
  });

  it('waits for the APIs: service accounts, topics, the sink, the bucket, functions, job, triggers', () => {
    const apis = 'google_project_service.apis';
    const types = [
      'google_service_account',
      'google_pubsub_topic',
      'google_logging_project_sink',
      'google_storage_bucket',
      'google_cloudfunctions2_function',
      'google_cloud_run_v2_job',
      'google_eventarc_trigger',
      'google_artifact_registry_repository',
    ];
    const missing = m.resources
      .filter((r) => types.includes(r.type) && !dependsOn(r.body).includes(apis))
      .map((r) => `${r.type}.${r.name}`);
    expect(missing).toEqual([]);
    expect(String(m.locals.apis)).toContain('eventarc.googleapis.com');
  });

  it('puts the Workload Identity pools in the (default) management cluster project', () => {
    expect(resource('google_iam_workload_identity_pool', 'management').project).toBe('${local.management_project}');
    expect(resource('google_iam_workload_identity_pool_provider', 'management').project).toBe('${local.management_project}');
    expect(String(m.locals.gke_pool_project)).toContain('local.management_project');
    expect(String(m.locals.gke_pool_project)).not.toContain('var.project_id');
    // The default management cluster's project; with the deprecated variable, its project_id as before.
    expect(String(m.locals.management_project)).toMatch(/module\.management_clusters\.clusters\[[\s\S]*module\.management_clusters\.default_management_cluster[\s\S]*\]\.project/);
  });

  it('creates every alert on a log-based metric after a wait for its metrics (provider #11102)', () => {
    const sleep = resource('time_sleep', 'metrics_propagation');
    const triggers = JSON.stringify(sleep.triggers);
    const metrics = resources('google_logging_metric').map((r) => r.name);
    const alerts = resources('google_monitoring_alert_policy');
    expect(alerts.length).toBeGreaterThanOrEqual(5);
    expect(metrics.length).toBeGreaterThanOrEqual(5);
    let checked = 0;
    for (const alert of alerts) {
      const used = metrics.filter((name) => JSON.stringify(alert.body).includes(`google_logging_metric.${name}[`));
      if (used.length === 0) continue;
      expect({ alert: alert.name, waits: dependsOn(alert.body).includes('time_sleep.metrics_propagation') }).toEqual({ alert: alert.name, waits: true });
      for (const name of used) expect(triggers).toContain(`google_logging_metric.${name}[`);
      checked++;
    }
    // Alerts on log-based metrics exist: the loop above asserted something.
    expect(checked).toBeGreaterThanOrEqual(4);
    expect(resources('google_monitoring_alert_policy').filter((a) => dependsOn(a.body).length > 0).length).toBeGreaterThanOrEqual(4);
  });

  // Issue 39 item 5 (1): Cloud Monitoring answers "Cannot find metric(s) ... it could take up to 10
  // minutes to become available" and the provider does not retry that 404 (monitoring.tf has the
  // sources), so the default wait is the 10 minutes the API states.
  it('waits, by default, the 10 minutes Cloud Monitoring gives a new log-based metric', () => {
    expect(resource('time_sleep', 'metrics_propagation').create_duration).toBe('${var.monitoring.metric_propagation_wait}');
    expect(String(m.variables.monitoring!.type)).toMatch(/metric_propagation_wait\s*=\s*optional\(string,\s*"600s"\)/);
  });

  it('never lets a subscription expire (expiration_policy ttl = "")', () => {
    const subscriptions = resources('google_pubsub_subscription');
    expect(subscriptions.map((s) => s.name).sort()).toEqual(['dead_letter_inspect', 'push']);
    for (const s of subscriptions) expect(block(s.body, 'expiration_policy')).toEqual({ ttl: '' });
  });

  it('offers VPC egress to the functions and the job, off by default', () => {
    expect(m.variables.network?.default).toBeNull();
    for (const fn of functions()) {
      const service = block(fn.body, 'service_config');
      expect(service.vpc_connector).toBe('${local.vpc_connector}');
      expect(String(service.vpc_connector_egress_settings)).toContain('var.network.egress');
    }
    const template = block(block(resource('google_cloud_run_v2_job', 'pull_secret'), 'template'), 'template');
    const vpc = (template.dynamic as Body).vpc_access as Body[];
    expect(String(vpc[0]!.for_each)).toBe('${var.network == null ? [] : [var.network]}');
  });

  it('builds the functions as a dedicated build account holding only what a build needs, each on the narrowest resource', () => {
    for (const fn of functions()) {
      expect(block(fn.body, 'build_config').service_account).toBe('${google_service_account.build.id}');
      expect(block(fn.body, 'build_config').docker_repository).toBe('${google_artifact_registry_repository.functions.id}');
    }
    const grants = m.resources.filter((r) => String(r.body.member ?? '').includes('google_service_account.build.email'));
    expect(grants.map((g) => `${g.type}.${g.name} ${String(g.body.role)}`).sort()).toEqual([
      'google_artifact_registry_repository_iam_member.build_pushes_images roles/artifactregistry.writer',
      'google_project_iam_member.build_logs roles/logging.logWriter',
      'google_project_iam_member.build_reads_sources roles/storage.objectAdmin',
    ]);
    // Object Admin as documented, on exactly two buckets: ours and Cloud Functions' gcf-v2-sources-NUMBER-REGION.
    const condition = String(block(resource('google_project_iam_member', 'build_reads_sources'), 'condition').expression);
    expect(condition).toContain('google_storage_bucket.sources.name');
    expect(condition).toContain('gcf-v2-sources-${local.platform_number}-${var.region}');
    expect(m.strings.join('\n')).not.toContain('roles/cloudbuild.builds.builder');
  });

  it('builds only after the build grants have propagated (one wait, on the first apply)', () => {
    const wait = resource('time_sleep', 'build_grants');
    expect(wait.create_duration).toBe('120s');
    expect(Object.values(wait.triggers as Record<string, string>).sort()).toEqual([
      '${google_artifact_registry_repository_iam_member.build_pushes_images.id}',
      '${google_project_iam_member.build_logs.id}',
      '${google_project_iam_member.build_reads_sources.id}',
    ]);
    for (const fn of functions()) expect(dependsOn(fn.body)).toContain('time_sleep.build_grants');
  });

  it('forgets, never destroys, what earlier versions managed that a running deployment still needs (upgrade.tf)', () => {
    expect(m.removed.map((r) => `${r.from} destroy=${r.destroy}`).sort()).toEqual([
      'google_artifact_registry_repository.images destroy=false',
      'google_kms_crypto_key_iam_member.secret_manager_agent destroy=false',
      'google_project_iam_custom_role.secret_manager destroy=false',
      'google_project_iam_member.job_secret_manager destroy=false',
      'google_project_iam_member.reader_secret_accessor destroy=false',
      'google_project_iam_member.reporter_secret_viewer destroy=false',
      'random_id.role_suffix destroy=false',
    ]);
  });

  it('runs the job as the launcher (run.jobsExecutorWithOverrides on the job) and grants nothing on the job account', () => {
    const launcher = resource('google_cloud_run_v2_job_iam_member', 'launcher_runs_job');
    expect(launcher.role).toBe('roles/run.jobsExecutorWithOverrides');
    expect(launcher.member).toBe('serviceAccount:${google_service_account.launcher.email}');
    // Nobody else may run the job: the adapter launches through the queue only.
    const runners = m.resources.filter((r) => r.body.role === 'roles/run.jobsExecutorWithOverrides' || (r.body.role === 'roles/run.invoker' && r.type === 'google_cloud_run_v2_job_iam_member'));
    expect(runners.map((r) => r.name)).toEqual(['launcher_runs_job']);
    const onJobAccount = m.resources.filter((r) => String(r.body.service_account_id ?? '').includes('google_service_account.job.'));
    expect(onJobAccount.map((r) => `${r.type}.${r.name}`)).toEqual([]);
  });

  it('lets the adapter launch through the queue only: enqueue, get and delete tasks there, actAs the launcher alone', () => {
    const queue = resource('google_cloud_tasks_queue', 'launches');
    expect(queue.location).toBe('${var.region}');
    expect(dependsOn(queue)).toContain('google_project_service.apis');
    const onQueue = resources('google_cloud_tasks_queue_iam_member').map((r) => [r.name, r.body.role, r.body.member, r.body.name]);
    const byName = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0]));
    expect(onQueue.sort(byName)).toEqual([
      // The fleet operators' pause, resume and read of this queue (fleet-operators.tf), for the principals given.
      ['fleet_operators', '${google_project_iam_custom_role.fleet_operator[0].id}', '${each.value}', '${google_cloud_tasks_queue.launches.name}'],
      ['adapter_enqueues', 'roles/cloudtasks.enqueuer', 'serviceAccount:${google_service_account.adapter.email}', '${google_cloud_tasks_queue.launches.name}'],
      ['adapter_reads_deletes_tasks', '${google_project_iam_custom_role.launch_tasks.id}', 'serviceAccount:${google_service_account.adapter.email}', '${google_cloud_tasks_queue.launches.name}'],
      // Each management cluster's own queue (launch_queue.per_management_cluster): the operators',
      // the adapter's same two, and the job's read of its state (a paused one's clusters are held).
      ['fleet_operators_per_management_cluster', '${google_project_iam_custom_role.fleet_operator[0].id}', '${each.value.member}', '${google_cloud_tasks_queue.per_management_cluster[each.value.cluster].name}'],
      ['adapter_enqueues_per_management_cluster', 'roles/cloudtasks.enqueuer', 'serviceAccount:${google_service_account.adapter.email}', '${each.value.name}'],
      ['adapter_reads_deletes_tasks_per_management_cluster', '${google_project_iam_custom_role.launch_tasks.id}', 'serviceAccount:${google_service_account.adapter.email}', '${each.value.name}'],
      ['job_reads_queue_state', '${google_project_iam_custom_role.queue_state[0].id}', 'serviceAccount:${google_service_account.job.email}', '${each.value.name}'],
    ].sort(byName));
    expect(resource('google_cloud_tasks_queue', 'per_management_cluster').for_each).toBe('${local.management_cluster_queues}');
    expect(resource('google_project_iam_custom_role', 'launch_tasks').permissions).toEqual(['cloudtasks.tasks.delete', 'cloudtasks.tasks.get']);
    const actAs = resources('google_service_account_iam_member').filter((r) => r.body.role === 'roles/iam.serviceAccountUser');
    expect(actAs.map((r) => [r.name, r.body.service_account_id, r.body.member])).toEqual([
      ['adapter_acts_as_launcher', '${google_service_account.launcher.name}', 'serviceAccount:${google_service_account.adapter.email}'],
    ]);
    // No project-wide Cloud Tasks or actAs role for any runtime identity; the operators' one list.
    const projectRoles = resources('google_project_iam_member').map((r) => `${r.name} ${String(r.body.role)}`);
    expect(projectRoles.filter((role) => /cloudtasks|serviceAccountUser|serviceAccountTokenCreator|fleet_operator/.test(role))).toEqual([
      'fleet_operators_list_queues ${google_project_iam_custom_role.fleet_operator_list[0].id}',
    ]);
    expect(String(m.locals.apis)).toContain('cloudtasks.googleapis.com');
  });

  it('holds no per-customer-project resource (tenant access is the module pullsecret-tenant-project)', () => {
    const perProject = m.resources.filter((r) => JSON.stringify(r.body).includes('target_project'));
    expect(perProject.map((r) => `${r.type}.${r.name}`)).toEqual([]);
    expect(m.data.filter((d) => JSON.stringify(d.body).includes('target_project'))).toEqual([]);
    // The custom roles here: the doctor's read of Eventarc triggers (doctor.tf), the adapter's read
    // of executions (job.tf) and of its launch tasks (launch-queue.tf), the fleet operators' queue
    // role (fleet-operators.tf); none per customer project.
    expect(resources('google_project_iam_custom_role').map((r) => r.name).sort()).toEqual(['doctor', 'execution_reader', 'fleet_operator', 'fleet_operator_list', 'launch_tasks', 'queue_state']);
    expect(resource('google_project_iam_custom_role', 'fleet_operator').permissions).toBe('${local.fleet_operator_permissions}');
    expect(resources('google_kms_crypto_key_iam_member')).toEqual([]);
    expect(Object.keys(m.outputs)).toContain('tenant_access');
  });

  it('lets the adapter read executions and their tasks on the job, but not list executions or run the job', () => {
    const reader = resource('google_cloud_run_v2_job_iam_member', 'adapter_reads_executions');
    expect(reader.role).toBe('${google_project_iam_custom_role.execution_reader.id}');
    expect(resource('google_project_iam_custom_role', 'execution_reader').permissions).toEqual(['run.executions.get', 'run.tasks.get', 'run.tasks.list']);
    // run.viewer (which lists executions) stays the reporter's alone.
    const viewer = resource('google_cloud_run_v2_job_iam_member', 'reads_executions');
    expect(viewer.role).toBe('roles/run.viewer');
    expect(Object.keys(viewer.for_each as Body)).toEqual(['reporter']);
    const adapterOnJob = resources('google_cloud_run_v2_job_iam_member').filter((r) => String(r.body.member).includes('google_service_account.adapter.'));
    expect(adapterOnJob.map((r) => r.name)).toEqual(['adapter_reads_executions']);
  });

  it('grants no primitive role anywhere', () => {
    const roles = m.resources.map((r) => String(r.body.role ?? '')).concat(m.resources.map((r) => String(r.body.for_each ?? '')));
    expect(roles.filter((r) => /roles\/(owner|editor|viewer)\b/.test(r))).toEqual([]);
  });

  it('validates name_prefix, regions and sizes', () => {
    const conditions = (variable: string) =>
      ((m.variables[variable]?.validation as Body[] | undefined) ?? []).map((v) => String(v.condition));
    expect(conditions('name_prefix').join()).toMatch(/regex/);
    expect(conditions('region').join()).toMatch(/regex/);
    expect(conditions('adapter').join()).toMatch(/max_instances/);
    expect(conditions('adapter').join()).toMatch(/memory/);
    expect(conditions('job').join()).toMatch(/var\.job\.memory/);
    expect(conditions('job').join()).toMatch(/timeout_seconds/);
    expect(conditions('delivery').join()).toMatch(/var\.delivery\.mode/);
    expect(conditions('delivery').join()).toMatch(/ack_deadline_seconds/);
    expect(conditions('network').join()).toMatch(/egress/);
  });

  // The dashboard's JSON (no key the API would not return as sent) is modules/dashboard's, rendered
  // and checked offline in dashboard.test.ts.
});
