import { customerProjectPermissionFix } from '../../../functions/pull-secret-job/run/permission-fix';

describe("the job's fix for PERMISSION_DENIED from Secret Manager", () => {
  it('in the customer project: onboard it, naming the docs section and the doctor', () => {
    const fix = customerProjectPermissionFix(
      'projects/cust-1/secrets/hyperfleet-a-pull-secret',
      'cust-1',
    );
    expect(fix).toContain('docs/deployment.md, "Onboarding a customer project"');
    expect(fix).toContain('pullsecret-tenant-project');
    expect(fix).toContain('pull-secret doctor --project cust-1');
  });

  it('elsewhere (the platform default pull secret) says nothing more than the generic advice', () => {
    expect(
      customerProjectPermissionFix('projects/platform/secrets/default/versions/3', 'cust-1'),
    ).toBeUndefined();
    expect(customerProjectPermissionFix('projects/cust-10/secrets/x', 'cust-1')).toBeUndefined();
  });
});
