import {
  GENERATION_ANNOTATION,
  needsStamp,
  stampFor,
  stampedGeneration,
  writtenByNewer,
} from '../../../functions/pull-secret-job/kubernetes/sync-kubernetes';

const stamped = (value: string) => ({ [GENERATION_ANNOTATION]: value, other: 'x' });

describe('the generation stamp on the Kubernetes Secret', () => {
  it('reads a positive integer, and nothing else (a hand-edited stamp orders nothing)', () => {
    expect(stampedGeneration(stamped('7'))).toBe(7);
    for (const bad of ['0', '-1', '07', '1.5', 'seven', '', '99999999999999999'])
      expect(stampedGeneration(stamped(bad))).toBeUndefined();
    expect(stampedGeneration({})).toBeUndefined();
    expect(stampedGeneration(undefined)).toBeUndefined();
  });

  it('a Secret stamped by a newer generation is neither overwritten nor removed', () => {
    expect(writtenByNewer(stamped('4'), 3)).toBe(true);
    expect(writtenByNewer(stamped('3'), 3)).toBe(false);
    expect(writtenByNewer(stamped('2'), 3)).toBe(false);
    expect(writtenByNewer({}, 3)).toBe(false);
    // Direct runs have no generation: outside the order, they never yield.
    expect(writtenByNewer(stamped('4'), undefined)).toBe(false);
  });

  it('unchanged bytes are stamped whenever the stored stamp is older than mine', () => {
    // An older stamp (or none) stops no execution between it and mine: stamp ours.
    expect(needsStamp(stamped('2'), 3)).toBe(true);
    expect(needsStamp(stamped('1'), 3)).toBe(true);
    expect(needsStamp({}, 3)).toBe(true);
    // Already ours (a task retry, a relaunch of the same generation): nothing to write.
    expect(needsStamp(stamped('3'), 3)).toBe(false);
    // A newer stamp is never overwritten (writtenByNewer refuses before this is asked).
    expect(needsStamp(stamped('4'), 3)).toBe(false);
    // No generation (direct run): outside the order, never stamps.
    expect(needsStamp({}, undefined)).toBe(false);
    expect(needsStamp(stamped('1'), undefined)).toBe(false);
  });

  it('writes the stamp only for executions with a generation', () => {
    expect(stampFor(5)).toEqual({ [GENERATION_ANNOTATION]: '5' });
    expect(stampFor(undefined)).toEqual({});
  });
});
