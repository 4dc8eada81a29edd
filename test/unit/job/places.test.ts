import {
  ANNOTATIONS_MAX_BYTES,
  PLACED_PREFIX,
  annotationsBytes,
  annotationsWithPlaces,
  placeKey,
  placesFromAnnotations,
  planApply,
  planCleanup,
  type Place,
} from '../../../functions/pull-secret-job/places/place-record';
import { CLAIM_ANNOTATIONS } from '../../../shared/pull-secret/claim';

const place = (cluster: string, namespace: string, name = 'cls-1-pull-secret'): Place => ({
  cluster,
  namespace,
  name,
});
const A = place('mgmt-1', 'ns-a');
const B = place('mgmt-2', 'ns-b');
const C = place('mgmt-1', 'ns-c');

describe('the place record in Secret Manager annotations', () => {
  it('uses keys Secret Manager accepts: at most 63 of [a-z0-9_.-], alphanumeric at both ends', () => {
    const longest = place('a'.repeat(63), 'b'.repeat(63), 'c'.repeat(253));
    for (const p of [A, B, longest]) {
      const key = placeKey(p);
      expect(key.startsWith(PLACED_PREFIX)).toBe(true);
      expect(key.length).toBeLessThanOrEqual(63);
      expect(key).toMatch(/^[a-z0-9]([a-z0-9_.-]*[a-z0-9])?$/);
    }
    expect(placeKey(A)).not.toBe(placeKey(C));
  });

  it('round-trips places and keeps every other annotation (the claim)', () => {
    const claim = { [CLAIM_ANNOTATIONS.generation]: '3', [CLAIM_ANNOTATIONS.execution]: 'e-1' };
    const recorded = annotationsWithPlaces(claim, { add: [B, A] });
    expect(recorded).toMatchObject(claim);
    expect(placesFromAnnotations(recorded)).toEqual([A, B]);
    const forgotten = annotationsWithPlaces(recorded, { remove: [A] });
    expect(placesFromAnnotations(forgotten)).toEqual([B]);
    expect(forgotten).toMatchObject(claim);
  });

  it('is idempotent: recording a place twice records it once', () => {
    const once = annotationsWithPlaces({}, { add: [A] });
    expect(annotationsWithPlaces(once, { add: [A] })).toEqual(once);
  });

  it('skips entries it cannot read, and entries whose key does not match their value', () => {
    expect(
      placesFromAnnotations({
        [`${PLACED_PREFIX}junk`]: 'not-a-place',
        [placeKey(A)]: 'mgmt-2/ns-b/cls-1-pull-secret',
        [placeKey(B)]: 'mgmt-2/ns-b/cls-1-pull-secret',
        'other-annotation': 'mgmt-1/ns-a/x',
      }),
    ).toEqual([B]);
  });

  it("stays far inside Secret Manager's 16 KiB for any realistic record", () => {
    const many = Array.from({ length: 20 }, (_, i) =>
      place(`us-central1-mgmt-${i}`, `clusters-${'x'.repeat(40)}`),
    );
    const annotations = annotationsWithPlaces(
      { [CLAIM_ANNOTATIONS.execution]: 'pullsecret-job-abcde' },
      { add: many },
    );
    expect(annotationsBytes(annotations)).toBeLessThan(ANNOTATIONS_MAX_BYTES);
    expect(annotationsBytes({ ab: 'cdé' })).toBe(6);
  });
});

describe('planApply: where to write and what to remove (a move)', () => {
  it('first write: records the target, removes nothing', () => {
    expect(planApply([], A)).toEqual({ record: [A], write: A, remove: [], retain: [] });
  });

  it('same place again: records nothing new, removes nothing', () => {
    expect(planApply([A], A)).toEqual({ record: [], write: A, remove: [], retain: [] });
  });

  it('a move to another cluster and namespace: records and writes the new place, removes the old', () => {
    expect(planApply([A], B)).toEqual({ record: [B], write: B, remove: [A], retain: [] });
  });

  it('a move within a cluster (namespace changed) and a renamed Secret are moves too', () => {
    expect(planApply([A], C)).toEqual({ record: [C], write: C, remove: [A], retain: [] });
    const renamed = place('mgmt-1', 'ns-a', 'custom-name');
    expect(planApply([A], renamed).remove).toEqual([A]);
  });

  it('an earlier move that could not clean up: every old place is removed, the target kept', () => {
    expect(planApply([A, B, C], B)).toEqual({ record: [], write: B, remove: [A, C], retain: [] });
  });

  it('a layout migration keeping the previous copy: retained places are neither removed nor forgotten', () => {
    const retained = (p: typeof A) => p.namespace === A.namespace;
    expect(planApply([A, B], C, retained)).toEqual({
      record: [C],
      write: C,
      remove: [B],
      retain: [A],
    });
  });
});

describe('planCleanup: what a delete removes', () => {
  it('every recorded place and the current target, each once', () => {
    expect(planCleanup([A, B], B)).toEqual([A, B]);
    expect(planCleanup([A], C)).toEqual([A, C]);
    expect(planCleanup([], A)).toEqual([A]);
    expect(planCleanup([B, A])).toEqual([A, B]);
  });
});
