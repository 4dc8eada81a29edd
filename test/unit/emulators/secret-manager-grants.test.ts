// The local Secret Manager emulator's allow policies are what Terraform grants: per customer project
// what terraform/modules/pullsecret-tenant-project binds (the role of modules/pullsecret-tenant-role,
// the same roles, the same conditions), and the platform module's accessor on the default pull secret.
import {
  hyperfleetSecretsCondition,
  jobCondition,
  JOB_SECRET_MANAGER_PERMISSIONS,
  secretManagerIam,
} from '../../../emulators/pullsecret/stack/secret-manager-grants';
import { derivedProjectNumber } from '../../../emulators/common/derived-number';
import { loadModules, moduleAt, resourceBody, type TfModule } from '../../helpers/terraform';

describe("the local stack's Secret Manager grants mirror Terraform's", () => {
  let modules: TfModule[];
  beforeAll(async () => {
    modules = await loadModules();
  });
  /** The tenant bindings module's locals: its expressions with the `own_secret` local expanded. */
  const tenantBinding = (identity: 'job' | 'reader' | 'reporter') => {
    const bindings = moduleAt(modules, 'modules/pullsecret-tenant-project/modules/bindings').locals;
    const ownSecret = String(bindings.own_secret);
    const binding = (bindings.bindings as Record<string, { role: string; expression: string }>)[
      identity
    ]!;
    return {
      role: binding.role,
      expression: binding.expression.replace('${local.own_secret}', ownSecret),
    };
  };

  it("the job's custom role holds exactly the tenant role's permissions", () => {
    expect([...JOB_SECRET_MANAGER_PERMISSIONS]).toEqual(
      moduleAt(modules, 'modules/pullsecret-tenant-role').locals.permissions,
    );
  });

  it('the conditions are the tenant module expressions', () => {
    expect(jobCondition()).toBe(tenantBinding('job').expression);
    expect(hyperfleetSecretsCondition()).toBe(tenantBinding('reader').expression);
    expect(hyperfleetSecretsCondition()).toBe(tenantBinding('reporter').expression);
    expect(jobCondition()).not.toContain('${');
  });

  it('the roles are the tenant roles, per onboarded project, and the accessor on the default pull secret', () => {
    const iam = secretManagerIam({
      targetProjects: ['customer-a', 'customer-b'],
      platformProject: 'platform-project',
      identities: {
        job: 'job@p.iam.gserviceaccount.com',
        reader: 'r@p.iam.gserviceaccount.com',
        reporter: 'rep@p.iam.gserviceaccount.com',
      },
      defaultPullSecretVersion: 'projects/platform-project/secrets/default-pull-secret/versions/3',
    });
    expect(tenantBinding('reader').role).toBe('roles/secretmanager.secretAccessor');
    expect(tenantBinding('reporter').role).toBe('roles/secretmanager.viewer');
    const platform = moduleAt(modules, 'modules/pullsecret-adapter');
    expect(
      resourceBody(
        platform,
        'google_secret_manager_secret_iam_member',
        'job_reads_default_pull_secret',
      ).role,
    ).toBe('roles/secretmanager.secretAccessor');
    expect(
      (iam.bindings ?? []).map(
        (b) => `${b.resource} ${b.role.replace(/^projects\/[^/]+\//, '')} ${b.members.join()}`,
      ),
    ).toEqual([
      'projects/customer-a roles/pullsecret_pullSecretManager_local serviceAccount:job@p.iam.gserviceaccount.com',
      'projects/customer-a roles/secretmanager.secretAccessor serviceAccount:r@p.iam.gserviceaccount.com',
      'projects/customer-a roles/secretmanager.viewer serviceAccount:rep@p.iam.gserviceaccount.com',
      'projects/customer-b roles/pullsecret_pullSecretManager_local serviceAccount:job@p.iam.gserviceaccount.com',
      'projects/customer-b roles/secretmanager.secretAccessor serviceAccount:r@p.iam.gserviceaccount.com',
      'projects/customer-b roles/secretmanager.viewer serviceAccount:rep@p.iam.gserviceaccount.com',
      'projects/platform-project/secrets/default-pull-secret roles/secretmanager.secretAccessor serviceAccount:job@p.iam.gserviceaccount.com',
    ]);
    expect(iam.bindings?.[0]?.condition?.expression).toBe(jobCondition());
  });

  it('grants the default pull secret named by project number on the project whose number it is', () => {
    const grants = (defaultPullSecretVersion: string) =>
      secretManagerIam({
        targetProjects: ['customer-a'],
        platformProject: 'platform-project',
        identities: { job: 'job@p.iam.gserviceaccount.com', reader: 'r@x.io', reporter: 'x@x.io' },
        defaultPullSecretVersion,
      });
    const byNumber = grants(
      `projects/${derivedProjectNumber('platform-project')}/secrets/default-pull-secret/versions/3`,
    );
    expect(byNumber.bindings?.at(-1)?.resource).toBe(
      'projects/platform-project/secrets/default-pull-secret',
    );
    expect(() => grants('projects/999999999999/secrets/default-pull-secret/versions/3')).toThrow(
      /project number 999999999999, which is none of the local projects/,
    );
  });
});
