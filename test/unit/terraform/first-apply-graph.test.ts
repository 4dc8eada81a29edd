// Issue 27: one `terraform apply` on an empty project succeeds. Checked over the module's dependency
// graph (references, locals expanded, and depends_on): everything that needs an API, a service
// agent, the job image or a prerequisite secret comes after it. Each rule is also run on a copy of
// the module with one dependency removed, to prove the rule notices.
import { buildGraph, withoutDependency } from '../../helpers/terraform-graph';
import { loadModules, moduleAt, type TfModule } from '../../helpers/terraform';

const APIS = 'google_project_service.apis';
const AGENTS_WAIT = 'time_sleep.service_agents';
const JOB_IMAGE = 'data.google_artifact_registry_docker_images.job_image';
const TOKEN_SECRET = 'data.google_secret_manager_secrets.hyperfleet_token';
const SENTINEL_TOPIC = 'data.google_pubsub_topic.sentinel';

/**
 * Resources that call an API outside project_id or need none: they cannot wait for project_id's
 * enablement. Each says why.
 */
const NOT_IN_PLATFORM_PROJECT: Record<string, string> = {
  'google_project_service.apis': 'is the enablement',
  'google_project_service.connect_gateway': "enables APIs in fleet host projects (their own enablement)",
  'google_project_iam_member.job_management_cluster': "grants in the management clusters' projects",
  'google_project_iam_member.job_cluster_viewer': "grants in the management cluster's project (deprecated variable)",
  'google_project_iam_member.job_connect_gateway': 'grants in the fleet host project (deprecated variable)',
  'google_iam_workload_identity_pool.management': "lives in the management cluster's project",
  'google_iam_workload_identity_pool_provider.management': "lives in the management cluster's project",
  'google_artifact_registry_repository_iam_member.run_agent_pulls_job_image': "grants in the image's project, which already serves the image",
  'google_secret_manager_secret_iam_member.job_reads_default_pull_secret': "grants on the default pull secret, which exists already (maybe in another project)",
  'time_sleep.service_agents': 'is a wait, after the agents',
  'time_sleep.sink_writer_identity': 'is a wait, after the sink',
  'terraform_data.attach_dead_letter': 'runs gcloud after the trigger (which waits)',
};

/** Member expressions naming a Google-managed service agent the module creates. */
const AGENT_MEMBERS = ['local.pubsub_agent', 'local.eventarc_agent', 'local.run_agent', 'local.secret_manager_agent'];

function apiViolations(mod: TfModule): string[] {
  const graph = buildGraph(mod);
  return mod.resources
    .filter((r) => r.type.startsWith('google_') || r.type.startsWith('time_') || r.type === 'terraform_data')
    .map((r) => `${r.type}.${r.name}`)
    .filter((address) => !(address in NOT_IN_PLATFORM_PROJECT))
    .filter((address) => !graph.dependsOn(address).has(APIS));
}

const AGENT_IDENTITIES = 'google_project_service_identity.agents';

/** A grant to an agent waits for the propagation; a grant the wait itself waits for, for the agent. */
function agentViolations(mod: TfModule): string[] {
  const graph = buildGraph(mod);
  const partOfWait = graph.dependsOn(AGENTS_WAIT);
  return mod.resources
    .filter((r) => AGENT_MEMBERS.some((agent) => String(r.body.member ?? '').includes(agent)))
    .map((r) => `${r.type}.${r.name}`)
    .filter((address) => !graph.dependsOn(address).has(partOfWait.has(address) ? AGENT_IDENTITIES : AGENTS_WAIT));
}

describe('terraform/modules/pullsecret-adapter: the first apply, over the dependency graph', () => {
  let m: TfModule;
  beforeAll(async () => {
    m = moduleAt(await loadModules(), 'modules/pullsecret-adapter');
  });

  it('every resource in the platform project comes after the API enablement', () => {
    expect(apiViolations(m)).toEqual([]);
    const removed = withoutDependency(m, 'google_artifact_registry_repository.functions', APIS);
    expect(apiViolations(removed)).toEqual(['google_artifact_registry_repository.functions']);
  });

  it('every grant to a service agent comes after the agent is created and IAM has propagated', () => {
    expect(agentViolations(m)).toEqual([]);
    const granted = m.resources.filter((r) => AGENT_MEMBERS.some((a) => String(r.body.member ?? '').includes(a)));
    expect(granted.length).toBeGreaterThanOrEqual(6);
    expect(agentViolations(withoutDependency(m, 'google_pubsub_topic_iam_member.dead_letter_publisher', AGENTS_WAIT))).toEqual([
      'google_pubsub_topic_iam_member.dead_letter_publisher',
    ]);
  });

  it('creates the agents it grants to (google-beta google_project_service_identity) and waits the IAM propagation time', () => {
    const identity = m.resources.find((r) => r.type === 'google_project_service_identity')!;
    expect(identity.body.provider).toBe('${google-beta}');
    for (const service of ['pubsub.googleapis.com', 'eventarc.googleapis.com', 'run.googleapis.com'])
      expect(JSON.stringify(m.locals.service_agents)).toContain(service);
    const wait = m.resources.find((r) => r.type === 'time_sleep' && r.name === 'service_agents')!;
    // Issue 39 item 5 (2): 7 minutes, Google's bound for IAM propagation and for the Eventarc agent's
    // permissions; the provider does not retry the trigger (service-agents.tf has the sources).
    expect(wait.body.create_duration).toBe('420s');
    expect(buildGraph(m).dependsOn('time_sleep.service_agents').has('google_project_iam_member.eventarc_agent')).toBe(true);
    // Secret Manager's agent lives in the default secret's project (maybe not project_id): its own
    // identity resource, waited for like the others before the topic grant.
    const secretManagerGrant = buildGraph(m).dependsOn('google_pubsub_topic_iam_member.secret_manager_publishes_fleet_requests');
    expect(secretManagerGrant.has('google_project_service_identity.secret_manager')).toBe(true);
    expect(secretManagerGrant.has(AGENTS_WAIT)).toBe(true);
  });

  it('creates Eventarc triggers only after the Eventarc agent holds its role (provider #25294)', () => {
    const graph = buildGraph(m);
    expect(graph.dependsOn('google_eventarc_trigger.delivery').has(AGENTS_WAIT)).toBe(true);
    expect(graph.dependsOn('google_eventarc_trigger.delivery').has('google_project_iam_member.eventarc_agent')).toBe(true);
    expect(buildGraph(withoutDependency(m, 'google_eventarc_trigger.delivery', AGENTS_WAIT)).dependsOn('google_eventarc_trigger.delivery').has(AGENTS_WAIT)).toBe(false);
  });

  it('looks the job image up before creating the job', () => {
    const graph = buildGraph(m);
    expect(graph.dependsOn('google_cloud_run_v2_job.pull_secret').has(JOB_IMAGE)).toBe(true);
    expect(buildGraph(withoutDependency(m, 'google_cloud_run_v2_job.pull_secret', JOB_IMAGE)).dependsOn('google_cloud_run_v2_job.pull_secret').has(JOB_IMAGE)).toBe(false);
  });

  it('looks the HyperFleet token secret up before the grants that mount it, so both functions and the job wait for it', () => {
    const graph = buildGraph(m);
    for (const address of ['google_cloudfunctions2_function.adapter', 'google_cloudfunctions2_function.reporter', 'google_cloud_run_v2_job.pull_secret'])
      expect({ address, looksUp: graph.dependsOn(address).has(TOKEN_SECRET) }).toEqual({ address, looksUp: true });
  });

  // Issue 39 item 5 (4): the topic's lookup is scoped in a check block (a missing topic is a plan
  // warning and cannot block a destroy); nothing may depend on it, and the adapter's route and the
  // doctor's grant use the configured topic. prerequisite-lookups.test.ts has the why.
  it("checks Sentinel's topic in a check block, which nothing depends on", () => {
    const lookup = m.data.find((d) => `data.${d.type}.${d.name}` === SENTINEL_TOPIC);
    expect(lookup?.check).toBe('sentinel_topic');
    const graph = buildGraph(m);
    const dependents = [...graph.edges.keys()].filter((address) => address !== SENTINEL_TOPIC && graph.dependsOn(address).has(SENTINEL_TOPIC));
    expect(dependents).toEqual([]);
    expect((m.locals.routes as Record<string, Record<string, unknown>>).adapter!.topic).toBe('${local.sentinel_topic_id}');
    expect(m.resources.find((r) => r.name === 'job_reads_sentinel_topic')!.body.topic).toBe('${local.sentinel_topic_name}');
  });

  it('grants the log sink writer identity only after it has propagated', () => {
    const graph = buildGraph(m);
    expect(graph.dependsOn('google_pubsub_topic_iam_member.sink_publishes_finished').has('time_sleep.sink_writer_identity')).toBe(true);
  });

  it('grants only to identities it creates or looks up first', () => {
    const graph = buildGraph(m);
    const members = m.resources.filter((r) => typeof r.body.member === 'string');
    const unknown = members.filter((r) => {
      const address = `${r.type}.${r.name}`;
      const deps = graph.dependsOn(address);
      const createdAccount = [...deps].some((d) => d.startsWith('google_service_account.'));
      const agent = deps.has(AGENTS_WAIT) || deps.has(AGENT_IDENTITIES);
      const sink = deps.has('time_sleep.sink_writer_identity');
      // The fleet operators are people or automation the caller names (var.fleet_operators).
      const operator = [
        'google_cloud_tasks_queue_iam_member.fleet_operators',
        'google_cloud_tasks_queue_iam_member.fleet_operators_per_management_cluster',
        'google_project_iam_member.fleet_operators_list_queues',
        'google_pubsub_topic_iam_member.fleet_operators_request_resync',
      ].includes(address);
      return !(createdAccount || agent || sink || operator);
    });
    expect(unknown.map((r) => `${r.type}.${r.name}: ${String(r.body.member)}`)).toEqual([]);
  });
});
