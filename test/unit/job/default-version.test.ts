// The platform default's version on the management-cluster Secret (hyperfleet.io/default-version):
// the job's ordering rule, pure, and the same rule as the admission fence evaluates it (the fence
// rendered from Terraform's template, run by the emulator's CEL): whenever the job would write, the
// fence admits, and whenever the job stands aside, the fence would refuse the write.
import { evaluatePolicy } from '../../../emulators/kube-apiserver/admission/evaluate';
import type { AdmissionAttributes } from '../../../emulators/kube-apiserver/admission/match';
import { renderFencePolicy } from '../../../emulators/pullsecret/management-cluster/fence-policy';
import { afterLostClaim, lostClaimResult } from '../../../functions/pull-secret-job/claim/claim';
import {
  DEFAULT_VERSION_ANNOTATION,
  newerDefaultStored,
  stampedDefaultVersion,
} from '../../../functions/pull-secret-job/kubernetes/default-version';
import {
  namesSource,
  sourceAnnotations,
  staleSourceAnnotations,
} from '../../../functions/pull-secret-job/kubernetes/secret-source';
import {
  GENERATION_ANNOTATION,
  stampedGeneration,
} from '../../../functions/pull-secret-job/kubernetes/sync-kubernetes';
import { exitCodeFor } from '../../../functions/pull-secret-job/run/job-outcome';

const stamps = (generation?: string, defaultVersion?: string): Record<string, string> => ({
  ...(generation !== undefined ? { [GENERATION_ANNOTATION]: generation } : {}),
  ...(defaultVersion !== undefined ? { [DEFAULT_VERSION_ANNOTATION]: defaultVersion } : {}),
});
const rule = (stored: Record<string, string>, generation?: number, defaultVersion?: string) =>
  newerDefaultStored(
    { generation: stampedGeneration(stored), annotations: stored },
    { generation, defaultVersion },
  );

describe('the default version stamp, as the job orders by it', () => {
  it('reads a decimal version number, and nothing else', () => {
    expect(stampedDefaultVersion(stamps(undefined, '12'))).toBe(12);
    for (const bad of ['0', '012', '-1', '1.5', 'latest', 'current', ''])
      expect(stampedDefaultVersion(stamps(undefined, bad))).toBeUndefined();
    expect(stampedDefaultVersion(undefined)).toBeUndefined();
  });

  it.each([
    [
      'a lower default version at the same generation',
      stamps('5', '7'),
      5,
      '6',
      { stored: 7, mine: 6 },
    ],
    [
      'no default version (its own pull secret) at the same generation',
      stamps('5', '7'),
      5,
      undefined,
      { stored: 7 },
    ],
    ['9 after 10: numbers, not text', stamps('5', '10'), 5, '9', { stored: 10, mine: 9 }],
  ])('stands aside for %s', (_what, stored, generation, mine, newer) => {
    expect(rule(stored, generation, mine)).toEqual({ ...newer, generation });
  });

  it.each([
    ['the same default version (a retry, a resync)', stamps('5', '7'), 5, '7'],
    ['a higher one (the rotation)', stamps('5', '7'), 5, '8'],
    ['10 after 9: numbers, not text', stamps('5', '9'), 5, '10'],
    [
      'a lower one at a newer generation (the generation stamp orders it)',
      stamps('5', '7'),
      6,
      '3',
    ],
    ['none stored (its own pull secret until now)', stamps('5'), 5, '1'],
    ['a stored value that is not a number', stamps('5', 'x'), 5, '1'],
    ['a stored generation that orders nothing', stamps('05', '7'), 5, '1'],
    ['a direct run (no generation)', stamps('5', '7'), undefined, '1'],
  ])('writes over %s', (_what, stored, generation, mine) => {
    expect(rule(stored, generation, mine)).toBeUndefined();
  });

  it('stands aside as superseded: exit 0, a result that says why, nothing withdrawn', () => {
    const lost = {
      kind: 'superseded',
      newerDefault: { stored: 8, mine: 7, generation: 5 },
    } as const;
    const result = lostClaimResult(lost, 'secret-manager');
    expect(result).toEqual({
      outcome: 'stood-aside',
      reason: 'SupersededExecution',
      message:
        "Superseded execution: the Kubernetes Secret already holds platform default version 8 at generation 5, newer than this execution's version 7 (hyperfleet.io/default-version; a rotation wrote it), so this execution stopped before writing to Kubernetes.",
    });
    expect(afterLostClaim(lost)).toBe('keep');
    expect(
      exitCodeFor({
        ...result,
        operation: 'apply',
        dry_run: false,
        cluster_id: 'c',
        phases: [],
        durations_ms: {},
        finished_at: 't',
      }),
    ).toBe(0);
  });

  it('the annotation is written from the default and removed once the bytes are the cluster’s own', () => {
    const fromDefault = {
      path: 'projects/p/secrets/d/versions/latest',
      version: '7',
      defaultVersion: '7',
    };
    expect(sourceAnnotations(fromDefault)).toEqual({
      'hyperfleet.io/gcp-secret-path': 'projects/p/secrets/d/versions/latest',
      'hyperfleet.io/gcp-secret-version': '7',
      [DEFAULT_VERSION_ANNOTATION]: '7',
    });
    const own = { path: 'projects/t/secrets/s/versions/current', version: '2' };
    const written = sourceAnnotations(fromDefault);
    expect(namesSource(written, fromDefault)).toBe(true);
    expect(namesSource(written, { ...fromDefault, defaultVersion: '8' })).toBe(false);
    expect(namesSource({ ...sourceAnnotations(own), [DEFAULT_VERSION_ANNOTATION]: '7' }, own)).toBe(
      false,
    );
    expect(staleSourceAnnotations(written, own)).toEqual([DEFAULT_VERSION_ANNOTATION]);
    expect(staleSourceAnnotations(written, fromDefault)).toEqual([]);
  });
});

describe('the fence refuses exactly what the job stands aside for', () => {
  const JOB = 'pullsecret-job@local-project.iam.gserviceaccount.com';
  const policy = renderFencePolicy(JOB)[0] as Parameters<typeof evaluatePolicy>[0];
  const LABELS = { 'managed-by': 'hyperfleet', adapter: 'pullsecret', 'cluster-id': 'c1' };
  const secret = (annotations: Record<string, string>) => ({
    metadata: { name: 'c1-pull-secret', labels: LABELS, annotations },
    type: 'kubernetes.io/dockerconfigjson',
  });
  const update = (
    old: Record<string, string>,
    next: Record<string, string>,
  ): AdmissionAttributes => ({
    operation: 'UPDATE',
    group: '',
    version: 'v1',
    resource: 'secrets',
    subresource: '',
    kind: 'Secret',
    name: 'c1-pull-secret',
    namespace: 'clusters-c1',
    object: secret(next),
    oldObject: secret(old),
    username: JOB,
    dryRun: false,
    namespaceObject: { metadata: { name: 'clusters-c1' } },
  });
  const admitted = (old: Record<string, string>, next: Record<string, string>) => {
    const verdict = evaluatePolicy(policy, update(old, next));
    return verdict !== 'skip' && verdict.allowed;
  };

  it.each([
    // [stored generation, stored default, my generation, my default]
    ['5', '7', 5, '6'],
    ['5', '7', 5, undefined],
    ['5', '10', 5, '9'],
    ['5', '7', 5, '7'],
    ['5', '7', 5, '8'],
    ['5', '9', 5, '10'],
    ['5', '7', 6, '3'],
    ['5', '7', 6, undefined],
    ['5', undefined, 5, '1'],
    ['5', 'x', 5, '1'],
    ['05', '7', 5, '1'],
  ] as const)(
    'stored generation %s default %s, written by generation %s default %s',
    (storedGeneration, storedDefault, generation, defaultVersion) => {
      const stored = stamps(storedGeneration, storedDefault);
      // The job writes the stored annotations with its own stamps over them (a merge patch).
      const written = { ...stored, ...stamps(String(generation), defaultVersion) };
      if (defaultVersion === undefined) delete written[DEFAULT_VERSION_ANNOTATION];
      const standsAside = rule(stored, generation, defaultVersion) !== undefined;
      expect(admitted(stored, written)).toBe(!standsAside);
    },
  );

  it('refuses a hostile lowering: an UPDATE that only sets a lower default version', () => {
    expect(admitted(stamps('5', '7'), stamps('5', '1'))).toBe(false);
    expect(admitted(stamps('5', '7'), stamps('5', 'garbage'))).toBe(false);
  });
});
