// Issue 26, item 4: the adapter sends only allow-listed override names, and the allow-list is one
// file, read by the adapter's code and by the Terraform that alerts on anything beyond it.
import fs from 'node:fs';
import path from 'node:path';
import { runJobHttpRequest } from '../../../functions/adapter/launch-queue/run-job-target';
import {
  EXECUTION_OVERRIDE_NAMES,
  runJobOverrideEnv,
  UnexpectedOverrideError,
} from '../../../functions/adapter/cloud-run/execution-overrides';
import { executionEnv, type LaunchRequest } from '../../../shared/launch/execution-env';
import { jobEnvSchema } from '../../../functions/pull-secret-job/config/config';
import { redirectingVariables } from '../../../functions/pull-secret-job/config/redirect-guard';
import { TERRAFORM_ROOT } from '../../helpers/terraform';

const ALLOW_LIST = path.join(TERRAFORM_ROOT, 'modules/pullsecret-adapter/run-job-overrides.json');
const TRACE = {
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  tracestate: 'vendor=x',
};
const base: LaunchRequest = {
  clusterId: 'cls-1',
  clusterName: 'prod',
  generation: 3,
  gcpProjectId: 'customer-project',
  namespace: 'clusters-cls-1',
  operation: 'apply',
  attempt: 1,
  launchId: 'launch-1',
  pullSecret: { source: 'cluster-spec', specPath: 'spec.pullSecret.data', additionalSpecPath: 'a' },
};
/** Every shape of launch: each optional variable the adapter can send appears in one of them. */
const REQUESTS: [string, LaunchRequest][] = [
  ['cluster-spec source', base],
  ['placement names a management cluster', { ...base, managementCluster: 'mgmt-2' }],
  [
    'Secret Manager source (the platform default)',
    {
      ...base,
      pullSecret: {
        source: 'secret-manager',
        version: 'projects/platform/secrets/default/versions/3',
        additionalSpecPath: 'a',
      },
    },
  ],
  ['deletion', { ...base, operation: 'delete' }],
];

describe('runJobOverrideEnv: the adapter sends only the allow-list', () => {
  it.each(REQUESTS)('%s: every variable of the execution is on the list', (_, request) => {
    const env = executionEnv(request, TRACE);
    expect(runJobOverrideEnv(env)).toEqual(
      Object.entries(env).map(([name, value]) => ({ name, value })),
    );
  });

  it.each([
    'NODE_OPTIONS',
    'MANAGEMENT_CLUSTERS',
    'MANAGEMENT_CLUSTERS_FILE',
    'KUBECONFIG',
    'SECRET_MANAGER_EMULATOR_HOST',
  ])('refuses %s before anything is launched, naming it', (name) => {
    const env = { ...executionEnv(base, TRACE), [name]: 'x' };
    const refuse = () => runJobOverrideEnv(env);
    expect(refuse).toThrow(UnexpectedOverrideError);
    expect(refuse).toThrow(`Refusing to launch the pull secret job with ${name}:`);
  });

  it('is case sensitive, as environment variable names are', () => {
    expect(() => runJobOverrideEnv({ cluster_id: 'cls-1' })).toThrow(UnexpectedOverrideError);
  });

  it("the launch task's RunJob body carries allow-listed env names only, and nothing else", () => {
    const target = {
      jobName: 'projects/p/locations/l/jobs/j',
      endpoint: 'https://run.googleapis.com',
      serviceAccountEmail: 'launcher@p.iam.gserviceaccount.com',
    };
    const requests = REQUESTS.map(([, request]) => {
      const http = runJobHttpRequest(request, target);
      expect(http.url).toBe('https://run.googleapis.com/v2/projects/p/locations/l/jobs/j:run');
      return JSON.parse(http.body.toString('utf8')) as {
        overrides: { containerOverrides: { env: { name: string }[] }[] };
      };
    });
    const sent = requests.flatMap((r) =>
      r.overrides.containerOverrides.flatMap((c) => c.env.map((e) => e.name)),
    );
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((name) => !EXECUTION_OVERRIDE_NAMES.has(name))).toEqual([]);
    // Env only: never args or clearArgs, so every execution the adapter launches runs the job
    // definition's own args, `run-job pull-secret` (job.tf), never `doctor` or anything else.
    expect(
      requests.flatMap((r) => [
        ...Object.keys(r.overrides).filter((key) => key !== 'containerOverrides'),
        ...r.overrides.containerOverrides.flatMap((c) =>
          Object.keys(c).filter((key) => key !== 'env'),
        ),
      ]),
    ).toEqual([]);
  });

  it('a launch with a name outside the allow-list is refused before anything is queued', () => {
    expect(() =>
      runJobOverrideEnv({ CLUSTER_ID: 'c', HYPERFLEET_API_BASE_URL: 'https://evil' }),
    ).toThrow(UnexpectedOverrideError);
  });
});

describe('the allow-list', () => {
  it('lets an operator run only the doctor as an args override, a command the adapter never sends', () => {
    const file = JSON.parse(fs.readFileSync(ALLOW_LIST, 'utf8')) as {
      operatorCommands: { names: string[] };
    };
    expect(file.operatorCommands.names).toEqual(['doctor']);
  });

  it("is Terraform's file (which the module's audit-log alert reads: test/unit/terraform/run-job-overrides.test.ts)", () => {
    const file = JSON.parse(fs.readFileSync(ALLOW_LIST, 'utf8')) as { names: string[] };
    expect([...EXECUTION_OVERRIDE_NAMES]).toEqual(file.names);
  });

  it('names only variables the job reads, none of which it refuses on Cloud Run', () => {
    const names = [...EXECUTION_OVERRIDE_NAMES];
    expect(names.filter((name) => !(name in jobEnvSchema.shape))).toEqual([]);
    expect(redirectingVariables(Object.fromEntries(names.map((n) => [n, 'x'])))).toEqual([]);
  });
});
