import {
  labelValueProblems,
  metadataCauses,
  qualifiedNameProblems,
} from '../../../emulators/kube-apiserver/metadata-rules';

describe('Kubernetes metadata rules (qualified names, label values, annotation size)', () => {
  it.each([
    'a',
    'A-b_c.d',
    'example.com/Name',
    `${'x'.repeat(63)}`,
    // A prefix of exactly 253 characters.
    `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}/n`,
  ])('accepts the qualified name %s', (name) => {
    expect(qualifiedNameProblems(name)).toEqual([]);
  });

  it.each<[string, string]>([
    ['', 'name part must be non-empty'],
    ['-a', 'name part must consist of'],
    ['a-', 'name part must consist of'],
    ['a b', 'name part must consist of'],
    ['x'.repeat(64), 'name part must be no more than 63 characters'],
    ['/a', 'prefix part must be non-empty'],
    ['Upper.com/a', 'prefix part a lowercase RFC 1123 subdomain'],
    [`${'p'.repeat(254)}/a`, 'prefix part must be no more than 253 characters'],
    ['a/b/c', 'a qualified name must consist of'],
  ])('rejects the qualified name %j: %s', (name, problem) => {
    expect(qualifiedNameProblems(name).join('\n')).toContain(problem);
  });

  it('label values: empty or up to 63 characters of the name charset', () => {
    expect(labelValueProblems('')).toEqual([]);
    expect(labelValueProblems('v'.repeat(63))).toEqual([]);
    expect(labelValueProblems('v'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(labelValueProblems('a.b_c-D')).toEqual([]);
    expect(labelValueProblems('_a')[0]).toContain('a valid label must be an empty string');
  });

  it('annotations: keys checked lower-cased, 256 KiB in total counting keys and values', () => {
    expect(metadataCauses({ annotations: { 'Example.COM/Key': 'v' } })).toEqual([]);
    const limit = 256 * 1024;
    expect(metadataCauses({ annotations: { k: 'x'.repeat(limit - 1) } })).toEqual([]);
    expect(metadataCauses({ annotations: { k: 'x'.repeat(limit) } })).toEqual([
      {
        field: 'metadata.annotations',
        message: 'Too long: must have at most 262144 bytes',
        reason: 'FieldValueTooLong',
      },
    ]);
  });
});
