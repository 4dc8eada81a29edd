// The local stack's platform default pull secret (issue 41's interface): configured unless a test
// turns it off, named by its `latest` on the adapter and the job so that a version added there is a
// rotation, granted to the job as Terraform grants it, and a demo credential plainly not a real one.
import {
  DEFAULT_PULL_SECRET,
  DEFAULT_PULL_SECRET_LABELS,
  defaultVersionEnv,
  demoDefaultPullSecret,
  stackDefaultPullSecret,
} from '../../../emulators/pullsecret/stack/default-pull-secret';
import {
  ADAPTER_IDENTITY,
  JOB_IDENTITY,
  LOCAL_PROJECT,
} from '../../../emulators/pullsecret/stack/layout';
import { localStackIam } from '../../../emulators/pullsecret/stack/stack-iam';
import { secretVersionNameSchema } from '../../../shared/gcp/secret-manager-names';
import { parsePullSecret } from '../../../shared/pull-secret/validate';

describe("the local stack's platform default pull secret", () => {
  it('is on by default: the secret in the platform project, by id, and its latest version', () => {
    expect(stackDefaultPullSecret({})).toEqual({
      secret: `projects/${LOCAL_PROJECT}/secrets/platform-default-pull-secret`,
      version: `projects/${LOCAL_PROJECT}/secrets/platform-default-pull-secret/versions/latest`,
    });
    expect(defaultVersionEnv({ defaultPullSecret: true })).toEqual({
      DEFAULT_PULL_SECRET_VERSION: `${DEFAULT_PULL_SECRET}/versions/latest`,
    });
    // The value the adapter's and the job's configuration accept.
    expect(
      secretVersionNameSchema.safeParse(defaultVersionEnv({}).DEFAULT_PULL_SECRET_VERSION).success,
    ).toBe(true);
  });

  it('is off with defaultPullSecret: false: no variable, no secret named', () => {
    expect(stackDefaultPullSecret({ defaultPullSecret: false })).toBeUndefined();
    expect(defaultVersionEnv({ defaultPullSecret: false })).toEqual({});
  });

  it("is readable by the job alone among the runtime identities, through Terraform's grant; its versions' metadata by the adapter too", () => {
    const iam = localStackIam({
      serviceAccounts: {},
      clusterModes: ['ip'],
      defaultPullSecretVersion: stackDefaultPullSecret({})!.version,
    });
    const onSecret = (iam.bindings ?? []).filter((b) => b.resource === DEFAULT_PULL_SECRET);
    expect(onSecret).toEqual([
      {
        resource: DEFAULT_PULL_SECRET,
        role: 'roles/secretmanager.secretAccessor',
        members: [`serviceAccount:${JOB_IDENTITY}`],
      },
      // `latest` is read as the newest enabled version: ListSecretVersions on this secret only.
      {
        resource: DEFAULT_PULL_SECRET,
        role: 'roles/secretmanager.viewer',
        members: [`serviceAccount:${JOB_IDENTITY}`],
      },
      // The adapter tells a retired version from a revoked current one: the same list, no payload.
      {
        resource: DEFAULT_PULL_SECRET,
        role: 'roles/secretmanager.viewer',
        members: [`serviceAccount:${ADAPTER_IDENTITY}`],
      },
    ]);
  });

  it("carries none of the job's ownership labels: the job never claims, aliases or deletes it", () => {
    expect(DEFAULT_PULL_SECRET_LABELS).not.toHaveProperty('managed-by');
    expect(DEFAULT_PULL_SECRET_LABELS).not.toHaveProperty('adapter');
    expect(DEFAULT_PULL_SECRET_LABELS).not.toHaveProperty('cluster-id');
  });

  it('holds a valid dockerconfigjson of a demo robot, new at every start', () => {
    const first = demoDefaultPullSecret();
    expect(() => parsePullSecret(first)).not.toThrow();
    const auths = (JSON.parse(first) as { auths: Record<string, { auth: string }> }).auths;
    expect(Object.keys(auths).sort()).toEqual(['quay.io', 'registry.redhat.io']);
    expect(Buffer.from(auths['quay.io']!.auth, 'base64').toString()).toMatch(
      /^platform-default-demo:/,
    );
    expect(demoDefaultPullSecret()).not.toBe(first);
  });
});
