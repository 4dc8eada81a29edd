// The local Secret Manager emulator's allow policies are what Terraform grants
// (terraform/modules/pullsecret-adapter/secret-manager-iam.tf): the same custom role permissions,
// the same roles and the same conditions, with the project number filled in.
import { derivedProjectNumber } from '../../../emulators/common/derived-number';
import {
  hyperfleetSecretsCondition,
  jobCondition,
  JOB_SECRET_MANAGER_PERMISSIONS,
  secretManagerIam,
} from '../../../emulators/stack/secret-manager-grants';
import { block, loadModules, moduleAt, resourceBody, type TfModule } from '../../helpers/terraform';

const NUMBER_REFERENCE = '${data.google_project.target[each.key].number}';

describe("the local stack's Secret Manager grants mirror Terraform's", () => {
  let tf: TfModule;
  beforeAll(async () => {
    tf = moduleAt(await loadModules(), 'modules/pullsecret-adapter');
  });
  const condition = (name: string) =>
    String(block(resourceBody(tf, 'google_project_iam_member', name), 'condition').expression);

  it("the job's custom role holds exactly the Terraform role's permissions", () => {
    expect([...JOB_SECRET_MANAGER_PERMISSIONS]).toEqual(
      resourceBody(tf, 'google_project_iam_custom_role', 'secret_manager').permissions,
    );
  });

  it('the conditions are the Terraform expressions with the project number', () => {
    expect(jobCondition('NUMBER')).toBe(
      condition('job_secret_manager').replace(NUMBER_REFERENCE, 'NUMBER'),
    );
    expect(hyperfleetSecretsCondition('NUMBER')).toBe(
      condition('reader_secret_accessor').replace(NUMBER_REFERENCE, 'NUMBER'),
    );
    expect(hyperfleetSecretsCondition('NUMBER')).toBe(
      condition('reporter_secret_viewer').replace(NUMBER_REFERENCE, 'NUMBER'),
    );
  });

  it('the roles are the Terraform roles, per target project, and the accessor on the default pull secret', () => {
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
    expect(resourceBody(tf, 'google_project_iam_member', 'reader_secret_accessor').role).toBe(
      'roles/secretmanager.secretAccessor',
    );
    expect(resourceBody(tf, 'google_project_iam_member', 'reporter_secret_viewer').role).toBe(
      'roles/secretmanager.viewer',
    );
    expect(
      resourceBody(tf, 'google_secret_manager_secret_iam_member', 'job_reads_default_pull_secret')
        .role,
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
    expect(iam.bindings?.[0]?.condition?.expression).toBe(
      jobCondition(derivedProjectNumber('customer-a')),
    );
  });
});
