import { ConfigError } from '../../../shared/errors';
import { loadJobConfig } from '../../../functions/pull-secret-job/config/config';
import { replicationMismatch } from '../../../functions/pull-secret-job/replication/existing-replication';
import { InvalidReplicationError } from '../../../functions/pull-secret-job/replication/invalid-replication';
import { locationProblem } from '../../../functions/pull-secret-job/replication/location-id';
import {
  judgeLocations,
  valueCovers,
} from '../../../functions/pull-secret-job/replication/location-policy';
import { replicationFor } from '../../../functions/pull-secret-job/replication/replication-rules';
import { requestedLocations } from '../../../functions/pull-secret-job/replication/requested-locations';

const PATH = 'spec.platform.gcp.secretReplication.locations';
const clusterAsking = (locations: unknown) => ({
  spec: { platform: { type: 'gcp', gcp: { projectID: 'p', secretReplication: { locations } } } },
});

/** The InvalidReplicationError message `fn` throws. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidReplicationError);
    expect((error as InvalidReplicationError).reason).toBe('InvalidReplication');
    expect((error as InvalidReplicationError).kind).toBe('permanent');
    return (error as Error).message;
  }
  throw new Error('expected an InvalidReplicationError');
}

describe('replica location ids', () => {
  it.each([
    'us-central1',
    'europe-west12',
    'northamerica-northeast2',
    'me-central2',
    'africa-south1',
  ])('accepts the region %s', (region) => expect(locationProblem(region)).toBeUndefined());

  it.each([
    ['US-CENTRAL1', /must be lowercase \(us-central1\)/],
    ['../', /not a Google Cloud region id/],
    ['us-central1/../x', /not a Google Cloud region id/],
    ['us-central1-a', /not a Google Cloud region id/], // a zone
    ['us', /not a Google Cloud region id/], // a multi-region
    ['global', /not a Google Cloud region id/],
    ['us-central1\n', /"us-central1\\n" is not/], // escaped, never a raw newline
    ['', /not a Google Cloud region id/],
    [42, /42 is not a string|"42" is not a string/],
  ])('refuses %j', (value, problem) => expect(locationProblem(value)).toMatch(problem));

  it('quotes a very long value cut short', () => {
    const problem = locationProblem(`us-${'a'.repeat(5000)}1`)!;
    expect(problem.length).toBeLessThan(400);
    expect(problem).toContain('…');
  });
});

describe('the regions a cluster spec asks for', () => {
  it('is nothing when the field is absent or null: the fleet default applies', () => {
    expect(requestedLocations({ spec: {} }, PATH)).toBeUndefined();
    expect(requestedLocations(clusterAsking(null), PATH)).toBeUndefined();
  });

  it('reads a list of regions', () => {
    expect(requestedLocations(clusterAsking(['us-central1', 'us-east1']), PATH)).toEqual([
      'us-central1',
      'us-east1',
    ]);
  });

  it.each([
    [
      ['us-central1/../x'],
      /spec\.platform\.gcp\.secretReplication\.locations\[0\]: "us-central1\/..\/x" is not a Google Cloud region id/,
    ],
    [['us-central1', '../'], /locations\[1\]: "\.\.\/" is not/],
    [['Us-Central1'], /locations\[0\]: "Us-Central1" must be lowercase/],
    [['us-east1', 'us-east1'], /locations\[1\]: us-east1 is listed twice/],
    [[], /must name at least one region/],
    ['us-central1', /must be a list of region ids/],
    [{ region: 'us-central1' }, /must be a list of region ids/],
    [Array.from({ length: 40 }, (_, i) => `us-east${i % 10}`), /names 40 locations; at most 16/],
  ])('refuses %j naming the field and the bad value', (value, problem) => {
    const message = refusal(() => requestedLocations(clusterAsking(value), PATH));
    expect(message).toMatch(problem);
    expect(message).toMatch(/remove the field to use the fleet's default replication/);
  });

  it('never echoes a hostile value raw or whole', () => {
    const hostile = `projects/x/secrets/y\n${'z'.repeat(10_000)}`;
    const message = refusal(() => requestedLocations(clusterAsking([hostile]), PATH));
    expect(message).not.toContain('\n');
    expect(message.length).toBeLessThan(1000);
  });
});

describe('the operator rules for a request', () => {
  const rules = {
    fleet: { kind: 'automatic' } as const,
    allowed: ['us-central1', 'us-east1'],
    specPath: PATH,
  };

  it('keeps the fleet replication when nothing is asked', () => {
    expect(replicationFor(undefined, rules)).toEqual({ kind: 'automatic' });
  });

  it('gives user-managed replication in the allowed regions asked for', () => {
    expect(replicationFor(['us-east1'], rules)).toEqual({
      kind: 'user-managed',
      locations: ['us-east1'],
    });
  });

  it('refuses a region not allowed, naming it and the allowed list', () => {
    const message = refusal(() => replicationFor(['us-east1', 'europe-west1'], rules));
    expect(message).toMatch(
      /europe-west1 is not allowed\. Allowed locations: us-central1, us-east1\./,
    );
    expect(message).toMatch(/ALLOWED_REPLICATION_LOCATIONS/);
  });

  it('refuses every request while the operator allows none', () => {
    const message = refusal(() => replicationFor(['us-east1'], { ...rules, allowed: [] }));
    expect(message).toMatch(/allows no per-cluster replication locations: the operator must list/);
  });

  it('carries the fleet CMEK key, one per region with {location}', () => {
    const key = 'projects/k/locations/{location}/keyRings/r/cryptoKeys/c';
    expect(
      replicationFor(['us-east1'], {
        ...rules,
        fleet: { kind: 'user-managed', locations: ['us-central1'], kmsKeyName: key },
      }),
    ).toEqual({ kind: 'user-managed', locations: ['us-east1'], kmsKeyName: key });
  });
});

describe('the configuration of per-cluster replication', () => {
  const base = {
    CLUSTER_ID: 'cls-1',
    GCP_PROJECT_ID: 'customer-project',
    PULL_SECRET_DATA: '{"auths":{}}',
  };
  const configError = (env: Record<string, string>) => {
    try {
      loadJobConfig({ ...base, ...env });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('allows no region and reads the spec path by default', () => {
    expect(loadJobConfig(base).replicationRequests).toEqual({ specPath: PATH, allowed: [] });
  });

  it('reads the allow list, trimmed and without repeats', () => {
    const config = loadJobConfig({
      ...base,
      ALLOWED_REPLICATION_LOCATIONS: ' us-central1, europe-west4,us-central1 ',
      REPLICATION_LOCATIONS_SPEC_PATH: 'spec.residency.regions',
    });
    expect(config.replicationRequests).toEqual({
      specPath: 'spec.residency.regions',
      allowed: ['us-central1', 'europe-west4'],
    });
  });

  it.each([
    [
      { ALLOWED_REPLICATION_LOCATIONS: 'us-central1,EU' },
      /ALLOWED_REPLICATION_LOCATIONS: "EU" is not a Google Cloud region id/,
    ],
    [
      { REPLICATION_LOCATIONS_SPEC_PATH: 'spec..x' },
      /REPLICATION_LOCATIONS_SPEC_PATH: must be a dot path/,
    ],
    [
      {
        REPLICATION_POLICY: 'user-managed:us-east1',
        KMS_KEY_NAME: 'projects/k/locations/us-east1/keyRings/r/cryptoKeys/c',
        ALLOWED_REPLICATION_LOCATIONS: 'us-east1,europe-west4',
      },
      /ALLOWED_REPLICATION_LOCATIONS: lists europe-west4, but KMS_KEY_NAME is one key in location "us-east1"/,
    ],
    [
      {
        KMS_KEY_NAME: 'projects/k/locations/global/keyRings/r/cryptoKeys/c',
        ALLOWED_REPLICATION_LOCATIONS: 'us-east1',
      },
      /ALLOWED_REPLICATION_LOCATIONS: lists us-east1, but KMS_KEY_NAME is one key in location "global"/,
    ],
  ])('refuses %j at start', (env, problem) => expect(configError(env)).toMatch(problem));

  it('accepts a key per location with any allowed region', () => {
    const config = loadJobConfig({
      ...base,
      REPLICATION_POLICY: 'user-managed:us-east1',
      KMS_KEY_NAME: 'projects/k/locations/{location}/keyRings/r/cryptoKeys/c',
      ALLOWED_REPLICATION_LOCATIONS: 'us-east1,europe-west4',
    });
    expect(config.replicationRequests.allowed).toEqual(['us-east1', 'europe-west4']);
  });
});

describe('the tenant project gcp.resourceLocations policy', () => {
  it.each([
    ['us-central1', 'us-central1', 'yes'],
    ['is:us-central1', 'us-central1', 'yes'],
    ['us-east1', 'us-central1', 'no'],
    ['in:us-central1-locations', 'us-central1', 'yes'],
    ['in:us-east1-locations', 'us-central1', 'no'],
    ['in:us-locations', 'us-central1', 'yes'],
    ['in:europe-locations', 'europe-west4', 'yes'],
    ['in:europe-locations', 'us-central1', 'unknown'], // Google's list, not copied here
    ['in:eu-locations', 'europe-west4', 'unknown'],
    ['in:low-carbon-locations', 'europe-west4', 'unknown'],
    ['us-central1-a', 'us-central1', 'no'], // a zone does not allow its region
  ])('%s covers %s: %s', (value, region, expected) =>
    expect(valueCovers(value, region)).toBe(expected),
  );

  it('allows everything without a rule (the constraint default) or with allowAll', () => {
    expect(judgeLocations([], ['us-east1'])).toEqual({ denied: [], undecided: [] });
    expect(judgeLocations([{ allowAll: true }], ['us-east1'])).toEqual({
      denied: [],
      undecided: [],
    });
  });

  it('judges no rule that carries a condition: what it might refuse is left to Secret Manager', () => {
    const tagged = { denyAll: true, condition: { expression: "resource.matchTag('env', 'prod')" } };
    expect(judgeLocations([tagged], ['us-east1'])).toEqual({ denied: [], undecided: ['us-east1'] });
    expect(
      judgeLocations([tagged, { values: { deniedValues: ['us-east1'] } }], ['us-east1']).denied,
    ).toEqual([{ location: 'us-east1', by: 'deniedValues us-east1' }]);
  });

  it('denies everything with denyAll', () => {
    expect(judgeLocations([{ denyAll: true }], ['us-east1']).denied).toEqual([
      { location: 'us-east1', by: 'denyAll' },
    ]);
  });

  it('denies a region outside the allowed values, naming them', () => {
    const verdict = judgeLocations(
      [{ values: { allowedValues: ['in:europe-locations'] } }],
      ['europe-west4', 'asia-east1'],
    );
    // The job does not guess what a curated group holds beyond the regions named after it:
    // asia-east1 is left to Secret Manager, which enforces the policy when it creates the secret.
    expect(verdict).toEqual({ denied: [], undecided: ['asia-east1'] });
    expect(
      judgeLocations(
        [{ values: { allowedValues: ['us-east1', 'in:us-central1-locations'] } }],
        ['europe-west4'],
      ),
    ).toEqual({
      denied: [
        { location: 'europe-west4', by: 'allowedValues us-east1, in:us-central1-locations' },
      ],
      undecided: [],
    });
  });

  it('denies a region a denied value covers; one a group only might cover is left undecided', () => {
    // in:northamerica-locations may hold us-* regions: a group's other members are Google's list.
    expect(
      judgeLocations(
        [{ values: { deniedValues: ['in:us-locations', 'europe-west1'] } }],
        ['us-east1', 'europe-west4'],
      ),
    ).toEqual({
      denied: [{ location: 'us-east1', by: 'deniedValues in:us-locations' }],
      undecided: ['europe-west4'],
    });
    expect(
      judgeLocations([{ values: { deniedValues: ['europe-west1'] } }], ['europe-west4']),
    ).toEqual({ denied: [], undecided: [] });
  });
});

describe('an existing secret replicated elsewhere', () => {
  const wanted = { kind: 'user-managed', locations: ['us-east1', 'us-central1'] } as const;
  const path = 'projects/p/secrets/hyperfleet-cls-1-pull-secret';

  it('is fine when its replicas are the requested regions, in any order', () => {
    expect(
      replicationMismatch(
        { kind: 'user-managed', locations: ['us-central1', 'us-east1'] },
        wanted,
        path,
      ),
    ).toBeUndefined();
  });

  it('is refused when automatic or elsewhere, saying the secret must be recreated', () => {
    expect(replicationMismatch({ kind: 'automatic' }, wanted, path)).toMatch(
      /already exists with automatic replication .*cannot change the replication of an existing secret.*delete projects\/p\/secrets\/hyperfleet-cls-1-pull-secret/,
    );
    expect(
      replicationMismatch({ kind: 'user-managed', locations: ['us-east1'] }, wanted, path),
    ).toMatch(/already exists with replicas in us-east1/);
  });

  it('is not compared when the cluster asks for nothing', () => {
    expect(replicationMismatch({ kind: 'automatic' }, { kind: 'automatic' }, path)).toBeUndefined();
  });
});
