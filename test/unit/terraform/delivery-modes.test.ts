// Issue 16 §1 and §3, Terraform side: Eventarc delivery (default) vs push subscriptions, the
// opt-in dead-letter step, the retry bound handed to the code, and the cluster RBAC module.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { loadModules, TERRAFORM_ROOT, type TfModule, block, type TfBody, resourceBody, moduleAt } from '../../helpers/terraform';

type Body = TfBody;

describe('terraform: delivery modes and the cluster side', () => {
  let m: TfModule;
  let rbac: TfModule;
  let example: TfModule;
  const resource = resourceBody;

  beforeAll(async () => {
    const modules = await loadModules();
    const at = (dir: string) => moduleAt(modules, dir);
    m = at('modules/pullsecret-adapter');
    rbac = at('modules/pullsecret-cluster-rbac');
    example = at('examples/basic');
  });

  it('defaults to eventarc and splits the three routes between triggers and push subscriptions by mode', () => {
    expect(String(m.variables.delivery?.type)).toMatch(/mode\s*=\s*optional\(string,\s*"eventarc"\)/);
    expect(m.locals.eventarc).toBe('${var.delivery.mode == "eventarc"}');
    expect(m.locals.triggers).toBe('${local.eventarc ? local.routes : {}}');
    expect(m.locals.subscriptions).toBe('${local.eventarc ? {} : local.routes}');
    expect(resource(m, 'google_eventarc_trigger', 'delivery').for_each).toBe('${local.triggers}');
    expect(resource(m, 'google_pubsub_subscription', 'push').for_each).toBe('${local.subscriptions}');
  });

  it('wires each trigger to its function on the messagePublished event of its topic, as its own account', () => {
    const trigger = resource(m, 'google_eventarc_trigger', 'delivery');
    expect(block(trigger, 'matching_criteria')).toEqual({ attribute: 'type', value: 'google.cloud.pubsub.topic.v1.messagePublished' });
    expect(block(block(trigger, 'transport'), 'pubsub')).toEqual({ topic: '${each.value.topic}' });
    expect(trigger.service_account).toBe('${google_service_account.trigger[each.value.function].email}');
    // The service NAME (a function's Cloud Run service is named as the function), not
    // service_config[0].service, the full projects/P/locations/R/services/NAME the API returns.
    const service = String(block(block(trigger, 'destination'), 'cloud_run_service').service);
    expect(service).toBe('${each.value.function == "adapter" ? google_cloudfunctions2_function.adapter.name : google_cloudfunctions2_function.reporter.name}');
    expect(service).not.toContain('service_config');
    const accounts = resource(m, 'google_service_account', 'trigger');
    expect(accounts.for_each).toBe('${local.eventarc ? toset(["adapter", "reporter"]) : toset([])}');
  });

  it('attaches the dead-letter topic to the trigger subscriptions only when asked, with the agent grants', () => {
    expect(m.locals.attached_dlq).toBe('${local.eventarc && var.delivery.attach_dead_letter ? local.routes : {}}');
    const attach = resource(m, 'terraform_data', 'attach_dead_letter');
    expect(attach.for_each).toBe('${local.attached_dlq}');
    const command = JSON.stringify(attach.provisioner);
    expect(command).toContain('gcloud pubsub subscriptions update');
    expect(command).toContain('transport[0].pubsub[0].subscription');
    expect(command).toContain('--dead-letter-topic=');
    expect(command).toContain('--max-delivery-attempts=');
    expect(resource(m, 'google_pubsub_subscription_iam_member', 'trigger_dead_letter_subscriber').member).toBe('${local.pubsub_agent}');
    expect(resource(m, 'google_pubsub_topic_iam_member', 'dead_letter_publisher').for_each).toBe('${local.dead_letter_route}');
    expect(String(m.variables.delivery?.type)).toMatch(/attach_dead_letter\s*=\s*optional\(bool,\s*false\)/);
  });

  it('hands the retry bound to the adapter and the reporter, and counts and alerts on events dropped by it', () => {
    const deliveryEnv = String(m.locals.delivery_env);
    for (const name of ['EVENT_MAX_AGE', 'EVENT_MAX_FAILURES']) expect(deliveryEnv).toContain(name);
    // Unset, the age is each function's own default (the adapter's and the reporter's differ).
    expect(String(m.variables.delivery?.type)).toMatch(/max_event_age\s*=\s*optional\(string\)/);
    for (const env of ['adapter_env', 'reporter_env']) expect(String(m.locals[env])).toContain('local.delivery_env');
    const metric = resource(m, 'google_logging_metric', 'retry_bound_exceeded');
    expect(String(metric.filter)).toContain('jsonPayload.metadata.decision="retry-bound-exceeded"');
    expect(String(metric.filter)).toContain('severity>=ERROR');
    const alert = resource(m, 'google_monitoring_alert_policy', 'retry_bound_exceeded');
    expect(JSON.stringify(alert)).toContain('google_logging_metric.retry_bound_exceeded');
  });

  it('applies the same RBAC as the kubectl manifest, from its own module with its own kubernetes provider', () => {
    const rendered = fs
      .readFileSync(path.join(TERRAFORM_ROOT, 'modules/pullsecret-cluster-rbac/templates/management-cluster-rbac.yaml.tftpl'), 'utf8')
      .replace(/%\{[^}]*\}/g, '')
      .replace(/\$\{[^}]*\}/g, 'x');
    const manifest = YAML.parseAllDocuments(rendered).map((d) => d.toJS() as Body);
    const clusterRole = manifest.find((d) => d.kind === 'ClusterRole')!;
    const rule = (clusterRole.rules as Body[])[0]!;
    const role = resource(rbac, 'kubernetes_cluster_role_v1', 'writer');
    expect(block(role, 'rule')).toEqual({ api_groups: rule.apiGroups, resources: rule.resources, verbs: rule.verbs });
    expect(block(role, 'metadata').name).toBe('${local.name}');
    expect(rbac.locals.name).toBe((clusterRole.metadata as Body).name);
    for (const binding of ['kubernetes_role_binding_v1', 'kubernetes_cluster_role_binding_v1'])
      expect(block(resource(rbac, binding, 'writer'), 'subject')).toMatchObject({ kind: 'User', name: '${var.job_service_account}' });

    // The example applies it per cluster (one GKE, one Connect Gateway): cluster-access.test.ts.
    for (const name of ['gke_cluster_rbac', 'connect_gateway_cluster_rbac']) {
      const call = example.modules[name]!;
      expect(call.source).toBe('../../modules/pullsecret-cluster-rbac');
      expect(String(call.for_each)).toMatch(/^\$\{var\.manage_cluster_rbac \? \{ for name, inputs in local\.rbac : name => inputs if name == local\.[a-z_]+ \} : \{\}\}$/);
    }
    expect(example.variables.manage_cluster_rbac?.default).toBe(false);
  });
});
