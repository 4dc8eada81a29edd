// terraform/modules/runtime-grants.json is the one source of the runtime identities' rights: every
// Terraform binding of a runtime identity reads its role (or custom role, or condition) from it,
// and the local stack binds the same roles to the local resources (runtime-grants.ts).
import fs from 'node:fs';
import path from 'node:path';
import {
  customRoleName,
  defaultPullSecretOf,
  RUNTIME_GRANTS,
  runtimeIam,
  withoutPermission,
} from '../../../emulators/pullsecret/stack/runtime-grants';
import { PREDEFINED_ROLES } from '../../../emulators/common/iam/roles';
import { localEventarc } from '../../../emulators/pullsecret/stack/delivery-triggers';
import { JOB_IDENTITY } from '../../../emulators/pullsecret/stack/layout';
import { IamModel } from '../../../emulators/common/iam/iam-model';
import { loadModules, TERRAFORM_ROOT, type TfModule } from '../../helpers/terraform';

const IDENTITIES = {
  adapter: 'a@p.iam.gserviceaccount.com',
  launcher: 'l@p.iam.gserviceaccount.com',
  job: 'j@p.iam.gserviceaccount.com',
  reporter: 'rep@p.iam.gserviceaccount.com',
  reader: 'r@p.iam.gserviceaccount.com',
};
const TARGETS = {
  platformProject: 'platform-project',
  platformProjectNumber: '100000000002',
  job: 'projects/platform-project/locations/us-central1/jobs/pullsecret-job',
  launchQueue: 'projects/platform-project/locations/us-central1/queues/pullsecret-launches',
  launcherAccount: IDENTITIES.launcher,
  tenantProjects: ['customer-a', 'customer-b'],
  defaultPullSecret: 'projects/platform-project/secrets/default-pull-secret',
  gkeClusterProjects: ['mgmt-project'],
  fleetHostProjects: ['fleet-host'],
};

describe('runtime-grants.json, the one source of what each runtime identity holds', () => {
  let modules: TfModule[];
  beforeAll(async () => {
    modules = await loadModules();
  });

  it('every grant is read by the Terraform resource it names, by its key', () => {
    for (const [key, grant] of Object.entries(RUNTIME_GRANTS.grants)) {
      const address = grant.terraform.split(' ')[0]!;
      const [type, name] = address.split('.') as [string, string];
      const holder = modules.find((m) =>
        type === 'module'
          ? name in m.modules
          : m.resources.some((r) => r.type === type && r.name === name),
      );
      expect({ key, found: holder !== undefined }).toEqual({ key, found: true });
      const readers = modules.filter((m) => m.strings.some((s) => s.includes(`["${key}"]`)));
      expect({ key, read: readers.length > 0 }).toEqual({ key, read: true });
    }
  });

  it("no runtime identity's binding in Terraform carries a role written outside the source", () => {
    const runtime = /google_service_account\.(adapter|launcher|job|reporter|reader)\.email|\$\{each\.value\}/;
    const grants = modules
      .flatMap((m) => m.resources)
      .filter((r) => /_iam_member$/.test(r.type) && runtime.test(String(r.body.member)))
      // Tracing's roles come from the tracing module (the same for every identity).
      .filter((r) => r.name !== 'tracing');
    expect(grants.length).toBeGreaterThanOrEqual(14);
    const raw = (m: TfModule) => m.strings.join('\n');
    for (const r of grants) {
      const owner = modules.find((m) => m.resources.includes(r))!;
      const role = String(r.body.role);
      // Resolved by the test loader from the source, or the id of a custom role built from it.
      const fromSource =
        Object.values(RUNTIME_GRANTS.grants).some((g) => g.role === role) ||
        /^\$\{google_project_iam_custom_role\.\w+(\[0\])?\.id\}$/.test(role) ||
        role === '${each.value.role}';
      expect({ resource: `${r.type}.${r.name}`, fromSource }).toEqual({
        resource: `${r.type}.${r.name}`,
        fromSource: true,
      });
      expect(raw(owner)).toContain('runtime-grants.json');
    }
  });

  it('every module that reads the source finds it where Terraform looks (path.module relative)', () => {
    for (const m of modules)
      for (const s of m.strings) {
        const found = /file\("\$\{path\.module\}\/([./]*runtime-grants\.json)"\)/.exec(s);
        if (found) expect(fs.existsSync(path.join(m.dir, found[1]!))).toBe(true);
      }
    expect(fs.existsSync(path.join(TERRAFORM_ROOT, 'modules/runtime-grants.json'))).toBe(true);
  });

  it('binds each grant to the local resources of its kind, with its condition', () => {
    const iam = runtimeIam({ targets: TARGETS, identities: IDENTITIES });
    const lines = (iam.bindings ?? []).map(
      (b) => `${b.resource} ${b.role} ${b.members.join()}${b.condition ? ' if' : ''}`,
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        `${TARGETS.job} roles/run.jobsExecutorWithOverrides serviceAccount:${IDENTITIES.launcher}`,
        `${TARGETS.launchQueue} roles/cloudtasks.enqueuer serviceAccount:${IDENTITIES.adapter}`,
        `${TARGETS.launchQueue} ${customRoleName('platform-project', 'pullSecretLaunchTasks')} serviceAccount:${IDENTITIES.adapter}`,
        `${TARGETS.job} ${customRoleName('platform-project', 'pullSecretExecutionReader')} serviceAccount:${IDENTITIES.adapter}`,
        `${TARGETS.job} roles/run.viewer serviceAccount:${IDENTITIES.reporter}`,
        `projects/customer-a ${customRoleName('customer-a', 'pullSecretManager')} serviceAccount:${IDENTITIES.job} if`,
        `projects/customer-b roles/secretmanager.viewer serviceAccount:${IDENTITIES.reporter} if`,
        `projects/customer-b roles/secretmanager.secretAccessor serviceAccount:${IDENTITIES.reader} if`,
        `${TARGETS.defaultPullSecret} roles/secretmanager.secretAccessor serviceAccount:${IDENTITIES.job}`,
        `projects/mgmt-project roles/container.clusterViewer serviceAccount:${IDENTITIES.job}`,
        `projects/fleet-host roles/gkehub.gatewayEditor serviceAccount:${IDENTITIES.job}`,
      ]),
    );
    // Every role the source names is one the emulators know (they refuse a binding otherwise).
    expect(() => new IamModel(iam)).not.toThrow();
  });

  it('takes one permission away from one identity, and only that permission', () => {
    const narrowed = withoutPermission(
      RUNTIME_GRANTS,
      'launcher-runs-job',
      'run.jobs.runWithOverrides',
      (role) => PREDEFINED_ROLES[role] ?? [],
    );
    const launcher = { members: [`serviceAccount:${IDENTITIES.launcher}`] };
    const before = new IamModel(runtimeIam({ targets: TARGETS, identities: IDENTITIES }));
    const after = new IamModel(
      runtimeIam({ targets: TARGETS, identities: IDENTITIES, grants: narrowed }),
    );
    const asked = ['run.jobs.run', 'run.jobs.runWithOverrides'];
    expect(before.held(launcher, TARGETS.job, asked)).toEqual(asked);
    expect(after.held(launcher, TARGETS.job, asked)).toEqual(['run.jobs.run']);
    expect(() =>
      withoutPermission(RUNTIME_GRANTS, 'launcher-runs-job', 'secretmanager.secrets.get', (r) => PREDEFINED_ROLES[r] ?? []),
    ).toThrow(/does not hold/);
  });
});

describe('the default pull secret the job may read', () => {
  const numbers = { 'platform-project': '100000000002', 'customer-a': '200000000003' };
  it('is the secret of DEFAULT_PULL_SECRET_VERSION, its project by id whether named by id or number', () => {
    expect(
      defaultPullSecretOf('projects/platform-project/secrets/default/versions/latest', numbers),
    ).toBe('projects/platform-project/secrets/default');
    expect(defaultPullSecretOf('projects/100000000002/secrets/default/versions/3', numbers)).toBe(
      'projects/platform-project/secrets/default',
    );
    expect(defaultPullSecretOf(undefined, numbers)).toBeUndefined();
    expect(() =>
      defaultPullSecretOf('projects/999999999999/secrets/default/versions/3', numbers),
    ).toThrow(/project number 999999999999, which is none of the local projects/);
  });
});

describe('docs/deployment.md, "Who holds what"', () => {
  it('lists every grant of runtime-grants.json, and no other', () => {
    const page = fs.readFileSync(path.join(TERRAFORM_ROOT, '../docs/deployment.md'), 'utf8');
    const section = page.slice(page.indexOf('## Who holds what'), page.indexOf('## Launches'));
    const listed = [...section.matchAll(/^\| `([a-z-]+)`(?:, `([a-z-]+)`)?/gm)].flatMap((m) =>
      [m[1]!, m[2]].filter((k): k is string => k !== undefined),
    );
    expect(listed.sort()).toEqual(Object.keys(RUNTIME_GRANTS.grants).sort());
  });
});

describe("the local Eventarc emulator's readers", () => {
  it('are what the shared grants give on the platform project: the job reads triggers', () => {
    const config = localEventarc({ delivery: 'eventarc', tokenInfoUrl: 'http://x', serviceAccounts: {} });
    expect(config.grants).toEqual({ [JOB_IDENTITY]: ['eventarc.triggers.get'] });
  });
});
