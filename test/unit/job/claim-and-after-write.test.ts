import { claimStep, lostClaimIn } from '../../../functions/pull-secret-job/claim/claim';
import { ownershipLabels } from '../../../functions/pull-secret-job/config/labels';
import { afterWriteStep } from '../../../functions/pull-secret-job/places/place-secret';
import {
  annotationsWithPlaces,
  placesFromAnnotations,
  type Place,
} from '../../../functions/pull-secret-job/places/place-record';
import type { SecretMetadata } from '../../../functions/pull-secret-job/secret-manager/secret-store';
import { annotationsWithClaim, type Claim } from '../../../shared/pull-secret/claim';

const CLUSTER = 'cls-1';
const PATH = 'projects/p/secrets/s';
const target: Place = { cluster: 'mgmt-1', namespace: 'clusters-cls-1', name: 'cls-1-pull-secret' };
const old: Place = { cluster: 'mgmt-2', namespace: 'clusters-cls-1', name: 'cls-1-pull-secret' };
const claim = (generation: number, operation: Claim['operation'] = 'apply'): Claim => ({
  generation,
  operation,
  attempt: 1,
  execution: `exec-${generation}-${operation}`,
});
const secret = (annotations: Record<string, string>): SecretMetadata => ({
  labels: ownershipLabels(CLUSTER),
  annotations,
  etag: '"e1"',
  versionAliases: {},
});
const alongWith = (a: Readonly<Record<string, string>>) =>
  annotationsWithPlaces(a, { add: [target] });
const create = { labels: ownershipLabels(CLUSTER), replication: { kind: 'automatic' as const } };
const applyTarget = { projectId: 'p', secretId: 's', clusterId: CLUSTER, create, alongWith };

describe('claimStep: the claim and the first place record in one write', () => {
  it('creates an absent secret with the claim and the target recorded', () => {
    const step = claimStep(undefined, claim(1), applyTarget);
    expect(step).toMatchObject({ then: { kind: 'claimed', secret: 'created' } });
    const annotations = 'create' in step ? step.create.annotations : {};
    expect(placesFromAnnotations(annotations)).toEqual([target]);
    expect(annotations).toMatchObject(annotationsWithClaim({}, claim(1)));
  });

  it('writes a newer claim over an older one, adding the target in the same update', () => {
    const stored = secret(
      annotationsWithPlaces(annotationsWithClaim({}, claim(1)), { add: [old] }),
    );
    const step = claimStep(stored, claim(2), applyTarget);
    const update = 'update' in step ? step.update : {};
    expect(placesFromAnnotations(update)).toEqual([target, old]);
    expect(update).toMatchObject(annotationsWithClaim({}, claim(2)));
  });

  it('a claim already ours with its target recorded writes nothing (a task retry)', () => {
    const stored = secret(alongWith(annotationsWithClaim({}, claim(2))));
    expect(claimStep(stored, claim(2), applyTarget)).toEqual({
      done: { kind: 'claimed', secret: 'reused', how: 'already held by this execution' },
    });
  });

  it('stops for newer work, never annotates a foreign secret, and a delete creates nothing', () => {
    const newer = secret(annotationsWithClaim({}, claim(3)));
    expect(claimStep(newer, claim(2), applyTarget)).toEqual({
      done: { kind: 'superseded', holder: claim(3) },
    });
    const foreign = { ...secret({}), labels: ownershipLabels('other') };
    expect(claimStep(foreign, claim(2), applyTarget)).toEqual({
      done: { kind: 'unclaimed', why: 'foreign' },
    });
    expect(
      claimStep(undefined, claim(2, 'delete'), {
        projectId: 'p',
        secretId: 's',
        clusterId: CLUSTER,
      }),
    ).toEqual({
      done: { kind: 'unclaimed', why: 'absent' },
    });
  });
});

describe('afterWriteStep: the one read after the Kubernetes write', () => {
  const mine = claim(2);
  const recheck = (current: SecretMetadata | undefined) => lostClaimIn(current, mine);
  const where = { clusterId: CLUSTER, secretPath: PATH };

  it('claim still ours and the target recorded: the record to clean up from, no write', () => {
    const read = secret(
      annotationsWithPlaces(annotationsWithClaim({}, mine), { add: [target, old] }),
    );
    expect(afterWriteStep(read, target, recheck, where)).toEqual({
      done: { recorded: [target, old] },
    });
  });

  it('the target forgotten meanwhile (a newer generation read the record): recorded again', () => {
    const read = secret(annotationsWithPlaces(annotationsWithClaim({}, mine), { add: [old] }));
    const step = afterWriteStep(read, target, recheck, where);
    expect(step).toMatchObject({ then: { recorded: [target, old] } });
    expect(placesFromAnnotations('update' in step ? step.update : {})).toEqual([target, old]);
  });

  it('a delete holds the claim, or the secret is gone: withdraw, nothing written', () => {
    const deleting = secret(annotationsWithClaim({}, claim(2, 'delete')));
    expect(afterWriteStep(deleting, target, recheck, where)).toEqual({
      done: { lost: { kind: 'superseded', holder: claim(2, 'delete') } },
    });
    expect(afterWriteStep(undefined, target, recheck, where)).toEqual({
      done: { lost: { kind: 'superseded' } },
    });
  });

  it('a newer apply holds the claim: the target recorded again (its run cleans it), then lost', () => {
    const newer = secret(annotationsWithClaim({}, claim(3)));
    const step = afterWriteStep(newer, target, recheck, where);
    expect(step).toMatchObject({ then: { lost: { kind: 'superseded', holder: claim(3) } } });
    expect(placesFromAnnotations('update' in step ? step.update : {})).toEqual([target]);
  });

  it('a direct run (no claim) still records the target again, and stands aside when gone', () => {
    const none = () => undefined;
    const read = secret({});
    expect(afterWriteStep(read, target, none, where)).toMatchObject({
      then: { recorded: [target] },
    });
    expect(afterWriteStep(undefined, target, none, where)).toEqual({
      done: { lost: { kind: 'superseded' } },
    });
  });
});
