// The doctor's gke-iam check against Resource Manager's projects.testIamPermissions (the Secret
// Manager emulator's, holding the stack's grants: terraform/modules/runtime-grants.json), asked
// with the job's own token: Terraform's roles/container.clusterViewer is fine; a project-level
// role with container.secrets.* (roles/container.developer, roles/editor) fails, naming the role,
// because GKE authorizes with IAM as well as RBAC and so restores the Secret reads the job's RBAC
// leaves out (test/integration/kubernetes/gke-iam.test.ts shows the hole itself).
import { loadDoctorConfig } from '../../../functions/pull-secret-job/doctor/doctor-config';
import { parseDoctorArgs } from '../../../functions/pull-secret-job/doctor/doctor-args';
import { checkGkeIam } from '../../../functions/pull-secret-job/doctor/gke-iam-step';
import {
  startMetadataServer,
  type MetadataServerEmulator,
} from '../../../emulators/metadata-server/server';
import {
  startSecretManagerEmulator,
  type SecretManagerEmulator,
} from '../../../emulators/secret-manager/server';
import { runtimeIam } from '../../../emulators/pullsecret/stack/runtime-grants';
import { JOB_SCOPES, metadataServerToken } from '../../helpers/metadata-token';

const PLATFORM = 'platform-project';
const MGMT = 'mgmt-project-1';
const JOB = `pullsecret-job@${PLATFORM}.iam.gserviceaccount.com`;

describe('pull-secret doctor: GKE IAM on the management clusters’ project', () => {
  let metadata: MetadataServerEmulator;
  let emulator: SecretManagerEmulator;
  let token: string;

  const bind = (role: string, method: 'POST' | 'DELETE') =>
    fetch(`${emulator.adminUrl}/_emulator/iam/bindings`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        method === 'POST'
          ? { resource: `projects/${MGMT}`, role, members: [`serviceAccount:${JOB}`] }
          : { resource: `projects/${MGMT}`, role, member: `serviceAccount:${JOB}` },
      ),
    }).then((answer) => expect(answer.status).toBe(200));

  /** The doctor's gke-iam rows, with the job's environment as the local stack gives it. */
  const doctor = (argv: string[] = []) =>
    checkGkeIam(
      {
        config: loadDoctorConfig({
          MANAGEMENT_CLUSTERS: JSON.stringify({
            'mgmt-1': { endpoint: 'https://gke-x.us-central1.gke.goog' },
          }),
          GOOGLE_CLOUD_PROJECT: MGMT,
          RESOURCE_MANAGER_EMULATOR_HOST: emulator.adminUrl.replace(/^http:\/\//, ''),
        }),
        args: parseDoctorArgs(argv),
      },
      token,
      JOB,
    );

  beforeAll(async () => {
    metadata = await startMetadataServer({ serviceAccount: JOB });
    token = await metadataServerToken(metadata.endpoint, JOB_SCOPES);
    emulator = await startSecretManagerEmulator({
      googleTokenInfoUrl: metadata.tokenInfoUrl,
      iam: runtimeIam({
        targets: {
          platformProject: PLATFORM,
          platformProjectNumber: '100000000002',
          job: `projects/${PLATFORM}/locations/us-central1/jobs/pullsecret-job`,
          launchQueue: `projects/${PLATFORM}/locations/us-central1/queues/pullsecret-launches`,
          launcherAccount: JOB,
          tenantProjects: [],
          gkeClusterProjects: [MGMT],
          fleetHostProjects: [],
        },
        identities: { adapter: JOB, launcher: JOB, job: JOB, reader: JOB, reporter: JOB },
      }),
    });
  });
  afterAll(async () => {
    await emulator?.stop();
    await metadata?.stop();
  });

  it('is OK with what Terraform grants (roles/container.clusterViewer: no container.secrets.*)', async () => {
    const [row] = await doctor();
    expect(row).toMatchObject({ name: `gke-iam ${MGMT}`, status: 'OK' });
    expect(row!.detail).toContain('the platform project');
  });

  it('fails on a project-level roles/container.developer, naming it and the Secret reads it restores', async () => {
    await bind('roles/container.developer', 'POST');
    try {
      const [row] = await doctor(['--management-project', MGMT]);
      expect(row).toMatchObject({ name: `gke-iam ${MGMT}`, status: 'FAIL' });
      expect(row!.detail).toBe(
        `holds container.secrets.get, container.secrets.list, container.secrets.create, container.secrets.update, container.secrets.delete on projects/${MGMT} through IAM`,
      );
      expect(row!.fix!.problem).toContain('may read every Secret of every cluster');
      expect(row!.fix!.resource).toContain('most likely roles/container.developer');
      expect(row!.fix!.action).toContain(
        `gcloud projects remove-iam-policy-binding ${MGMT} --member=serviceAccount:${JOB}`,
      );
    } finally {
      await bind('roles/container.developer', 'DELETE');
    }
  });

  it('tells roles/editor (or container.admin) from container.developer by container.clusters.create', async () => {
    await bind('roles/editor', 'POST');
    try {
      const [row] = await doctor();
      expect(row!.status).toBe('FAIL');
      expect(row!.fix!.resource).toContain(
        'most likely roles/container.admin or roles/editor or roles/owner',
      );
    } finally {
      await bind('roles/editor', 'DELETE');
    }
    expect((await doctor())[0]!.status).toBe('OK');
  });

  it('a project the job may not see is a SKIP that asks for the right project', async () => {
    const [row] = await doctor(['--management-project', 'someone-elses-project']);
    expect(row).toMatchObject({ name: 'gke-iam someone-elses-project', status: 'SKIP' });
    expect(row!.fix!.action).toContain('--management-project');
  });
});
