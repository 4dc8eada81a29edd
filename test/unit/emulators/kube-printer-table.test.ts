import {
  humanAge,
  jsonPathValues,
  printerTable,
  wantsTable,
} from '../../../emulators/kube-apiserver/crds/printer-table';

/** The server-side Table of custom resources: the JSONPath subset of printer columns, ages. */
const object = {
  metadata: { name: 'demo', namespace: 'ns', creationTimestamp: '2026-01-01T00:00:00Z' },
  status: {
    conditions: [
      { type: 'Available', status: 'True' },
      { type: 'Progressing', status: 'False' },
    ],
    version: {
      history: [
        { state: 'Completed', version: '4.17.1' },
        { state: 'Partial', version: '4.18.0' },
      ],
    },
  },
};

describe('printer columns', () => {
  it('evaluates the JSONPath subset CRDs use', () => {
    expect(jsonPathValues(object, '.metadata.name')).toEqual(['demo']);
    expect(jsonPathValues(object, '.status.conditions[?(@.type=="Available")].status')).toEqual([
      'True',
    ]);
    expect(
      jsonPathValues(object, '.status.version.history[?(@.state!="Completed")].version'),
    ).toEqual(['4.18.0']);
    expect(jsonPathValues(object, '.status.conditions[1].type')).toEqual(['Progressing']);
    expect(jsonPathValues(object, '.status.conditions[*].type')).toEqual([
      'Available',
      'Progressing',
    ]);
    expect(jsonPathValues(object, '.spec.missing')).toEqual([]);
  });

  it('prints ages as kubectl does', () => {
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    expect(humanAge('2026-01-01T00:00:00Z', t0 + 45_000)).toBe('45s');
    expect(humanAge('2026-01-01T00:00:00Z', t0 + 30 * 60_000)).toBe('30m');
    expect(humanAge('2026-01-01T00:00:00Z', t0 + 5 * 3_600_000)).toBe('5h');
    expect(humanAge('2026-01-01T00:00:00Z', t0 + 3 * 86_400_000)).toBe('3d');
  });

  it('builds a meta.k8s.io/v1 Table (Name first; Age when the CRD has no columns)', () => {
    const table = printerTable(
      [
        {
          name: 'Available',
          type: 'string',
          jsonPath: '.status.conditions[?(@.type=="Available")].status',
        },
      ],
      [object],
      '7',
    );
    expect(table).toMatchObject({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '7' },
      rows: [
        {
          cells: ['demo', 'True'],
          object: { kind: 'PartialObjectMetadata', metadata: { namespace: 'ns' } },
        },
      ],
    });
    expect(
      (printerTable([], [object], '7').columnDefinitions as { name: string }[]).map((c) => c.name),
    ).toEqual(['Name', 'Age']);
    expect(wantsTable('application/json;as=Table;v=v1;g=meta.k8s.io,application/json')).toBe(true);
    expect(wantsTable('application/json')).toBe(false);
  });
});
