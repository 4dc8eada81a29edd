// The platform default pull secret stays out of the tenant project (issue 26, item 5); the
// exploit test is test/integration/job/platform-default.test.ts.
import { loadJobConfig } from '../../../functions/pull-secret-job/config/config';
import {
  copiesToTenant,
  holdsCredentialsOf,
  pullSecretOrigin,
  secretSource,
} from '../../../functions/pull-secret-job/run/tenant-copy';
import type { SecretManagerOutcome } from '../../../functions/pull-secret-job/secret-manager/sync-secret-manager';
import { parsePullSecret } from '../../../shared/pull-secret/validate';
import { samplePullSecret } from '../../helpers/job';

const DEFAULT_TEXT = samplePullSecret('platform', 'platform-password');
const platformDefault = {
  parsed: parsePullSecret(DEFAULT_TEXT, 'default'),
  bytes: Buffer.from(DEFAULT_TEXT),
};
const auth = (user: string, password: string) =>
  Buffer.from(`${user}:${password}`).toString('base64');

describe('copying the platform default into the tenant project', () => {
  it.each([
    ['cluster-spec', undefined, true],
    ['env', undefined, true],
    ['secret-manager', undefined, false],
    ['secret-manager', true, true],
  ] as const)('source %s, opt-in %s: copies %s', (kind, optIn, copies) => {
    expect(copiesToTenant(optIn ? { copyPlatformDefaultToTenant: optIn } : {}, kind)).toBe(copies);
  });

  it('names the default as such', () => {
    expect(pullSecretOrigin('secret-manager')).toBe('platform-default');
    expect(pullSecretOrigin('cluster-spec')).toBe('cluster-spec');
  });

  it('is off unless COPY_PLATFORM_DEFAULT_TO_TENANT=true', () => {
    const env = {
      CLUSTER_ID: 'cls-1',
      GCP_PROJECT_ID: 'demo-project',
      PULL_SECRET_SOURCE: 'secret-manager',
      PULL_SECRET_SECRET_VERSION: 'projects/p/secrets/default/versions/1',
    };
    expect(loadJobConfig(env).copyPlatformDefaultToTenant).toBeUndefined();
    expect(
      loadJobConfig({ ...env, COPY_PLATFORM_DEFAULT_TO_TENANT: 'true' })
        .copyPlatformDefaultToTenant,
    ).toBe(true);
    expect(() => loadJobConfig({ ...env, COPY_PLATFORM_DEFAULT_TO_TENANT: 'maybe' })).toThrow(
      /COPY_PLATFORM_DEFAULT_TO_TENANT: must be true or false/,
    );
  });

  it.each([
    ['the same bytes', DEFAULT_TEXT, true],
    ['reformatted', JSON.stringify(JSON.parse(DEFAULT_TEXT), null, 2), true],
    [
      'merged with an additional pull secret',
      JSON.stringify({
        auths: {
          ...(JSON.parse(DEFAULT_TEXT) as { auths: object }).auths,
          'extra.io': { auth: auth('tenant', 'x') },
        },
      }),
      true,
    ],
    [
      'one of its credentials under another registry',
      JSON.stringify({
        auths: { 'elsewhere.io': { auth: auth('platform', 'platform-password') } },
      }),
      true,
    ],
    ["the tenant's own", samplePullSecret('tenant', 'tenant-password'), false],
    ['not JSON', 'garbage', false],
    ['JSON without auths', '{"a":1}', false],
  ])('tells a version holding the default: %s', (_, text, holds) => {
    expect(holdsCredentialsOf(Buffer.from(text), platformDefault)).toBe(holds);
  });

  it("names in the Kubernetes Secret's annotations what readers read and the version the bytes came from", () => {
    const stored = (version: SecretManagerOutcome['version'], versionName = '') => ({
      secretPath: 'projects/t/secrets/s',
      secret: 'reused' as const,
      version,
      versionName,
      verified: true,
      destroyedVersions: [],
    });
    const source = {
      kind: 'secret-manager',
      version: 'projects/p/secrets/d/versions/latest',
    } as const;
    // The default not copied: read as the platform configured it; the bytes came from version 2.
    expect(secretSource(stored('none'), source, 'projects/p/secrets/d/versions/2')).toEqual({
      path: 'projects/p/secrets/d/versions/latest',
      version: '2',
      defaultVersion: '2',
    });
    // Copied under the opt-in: read through `current`, still stamped with the default's number.
    expect(
      secretSource(
        stored('added', 'projects/t/secrets/s/versions/3'),
        source,
        'projects/p/secrets/d/versions/12',
      ),
    ).toEqual({
      path: 'projects/t/secrets/s/versions/current',
      version: '3',
      defaultVersion: '12',
    });
    // The tenant's own (or the default copied): read through `current`, never a number retention destroys.
    for (const version of ['added', 'unchanged'] as const)
      expect(secretSource(stored(version, 'projects/t/secrets/s/versions/3'), source)).toEqual({
        path: 'projects/t/secrets/s/versions/current',
        version: '3',
      });
    // A dry run that would add a version knows no number yet.
    // The cluster's own pull secret carries no default version, even with a name given.
    expect(
      secretSource(
        stored('added', 'projects/t/secrets/s/versions/4'),
        { kind: 'cluster-spec', specPath: 'spec.pullSecret' },
        'projects/p/secrets/d/versions/2',
      ),
    ).toEqual({ path: 'projects/t/secrets/s/versions/current', version: '4' });
    expect(secretSource(stored('added'), { kind: 'env', data: '{}' })).toEqual({
      path: 'projects/t/secrets/s/versions/current',
    });
  });
});
