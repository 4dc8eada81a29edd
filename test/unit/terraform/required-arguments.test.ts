import { loadModules, loadProviderSchemas, type TfModule } from '../../helpers/terraform';
import { configBlocks } from '../../helpers/terraform-providers';
import { requiredProblems } from '../../helpers/terraform-required';

// `terraform validate` rejects a block without a required argument, a missing required block and a
// block repeated beyond its max_items. The google and google-beta snapshots state all three.
describe('required arguments and block counts (7.x schemas)', () => {
  const schemas = loadProviderSchemas();
  let modules: TfModule[];

  beforeAll(async () => {
    modules = await loadModules();
  });

  it('every resource and data block of the modules sets what 7.x requires, each nested block as often as allowed', () => {
    const checked = modules
      .flatMap((m) => configBlocks(m, schemas))
      .filter((b) => b.schema?.attribute_details);
    expect(checked.length).toBeGreaterThan(50);
    expect(checked.flatMap((b) => requiredProblems(b.body, b.schema!, b.where))).toEqual([]);
  });

  it('the checker reports event_trigger.event_type, required since 7.0, when missing', () => {
    const schema = schemas.google!.resources.google_cloudfunctions2_function!;
    const body = {
      name: 'adapter',
      location: 'us-central1',
      event_trigger: [{ pubsub_topic: 'projects/p/topics/t' }],
    };
    expect(requiredProblems(body, schema, 'fn')).toEqual([
      'fn.event_trigger: missing required argument "event_type"',
    ]);
    expect(
      requiredProblems(
        {
          ...body,
          event_trigger: [{ event_type: 'google.cloud.pubsub.topic.v1.messagePublished' }],
        },
        schema,
        'fn',
      ),
    ).toEqual([]);
  });

  it('the checker reports a missing required argument and block, and a repeated max_items = 1 block', () => {
    const subscription = schemas.google!.resources.google_pubsub_subscription!;
    expect(subscription.blocks.push_config!.max_items).toBe(1);
    expect(
      requiredProblems(
        {
          topic: 't',
          push_config: [{ push_endpoint: 'https://a' }, { push_endpoint: 'https://b' }],
        },
        subscription,
        'sub',
      ),
    ).toEqual([
      'sub: missing required argument "name"',
      'sub: block "push_config" may appear at most 1 time(s), found 2',
    ]);
    const auditConfig = schemas.google!.resources.google_project_iam_audit_config!;
    expect(auditConfig.blocks.audit_log_config!.min_items).toBe(1);
    expect(
      requiredProblems({ project: 'p', service: 'allServices' }, auditConfig, 'audit'),
    ).toEqual(['audit: block "audit_log_config" is required (at least 1), found 0']);
  });

  it('the checker looks inside dynamic blocks, and does not count them', () => {
    const auditConfig = schemas.google!.resources.google_project_iam_audit_config!;
    const body = {
      project: 'p',
      service: 'allServices',
      dynamic: {
        audit_log_config: [{ for_each: '${var.types}', content: [{ exempted_members: [] }] }],
      },
    };
    expect(requiredProblems(body, auditConfig, 'audit')).toEqual([
      'audit.audit_log_config: missing required argument "log_type"',
    ]);
  });
});
