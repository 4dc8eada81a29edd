import { omitPaths, readPath } from '../../../shared/object-path';

describe('omitPaths', () => {
  const cluster = {
    id: 'c1',
    spec: { pullSecret: { data: 'secret', additional: 'more', note: 'kept' }, other: { a: 1 } },
  };

  it('removes each path and keeps everything else, without changing the input', () => {
    const copy = omitPaths(cluster, ['spec.pullSecret.data', 'spec.pullSecret.additional']);
    expect(copy).toEqual({ id: 'c1', spec: { pullSecret: { note: 'kept' }, other: { a: 1 } } });
    expect(readPath(cluster, 'spec.pullSecret.data')).toBe('secret');
    // Only the objects along a path are copied.
    expect(copy.spec.other).toBe(cluster.spec.other);
  });

  it.each([
    ['a missing key', 'spec.absent.data'],
    ['a path through a string', 'id.length'],
    ['a path through an array', 'list.0'],
  ])('changes nothing for %s', (_name, path) => {
    const value = { ...cluster, list: ['x'] };
    expect(omitPaths(value, [path])).toBe(value);
  });
});
