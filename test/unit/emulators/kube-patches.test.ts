import { parseLabelSelector } from '../../../emulators/kube-apiserver/label-selector';
import {
  applyFields,
  recordUpdate,
  renderManagedFields,
} from '../../../emulators/kube-apiserver/managed-fields';
import { jsonMergePatch, strategicMergePatch } from '../../../emulators/kube-apiserver/merge-patch';

describe('jsonMergePatch (RFC 7386)', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, expected) => {
    expect(jsonMergePatch(target, patch)).toEqual(expected);
  });
});

describe('strategicMergePatch', () => {
  it('merges maps, ignores $ directives and honours $patch', () => {
    expect(
      strategicMergePatch(
        { metadata: { labels: { a: '1', b: '2' } } },
        { metadata: { labels: { b: null, c: '3' }, '$setElementOrder/x': [] } },
      ),
    ).toEqual({ metadata: { labels: { a: '1', c: '3' } } });
    expect(
      strategicMergePatch({ data: { a: 'x', b: 'y' } }, { data: { $patch: 'replace', c: 'z' } }),
    ).toEqual({ data: { c: 'z' } });
    expect(
      strategicMergePatch({ data: { a: 'x' }, type: 't' }, { data: { $patch: 'delete' } }),
    ).toEqual({ type: 't' });
  });
});

describe('parseLabelSelector', () => {
  const labels = { app: 'web', tier: 'front', 'managed-by': 'hyperfleet' };
  it.each([
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app=web,tier=back', false],
    ['tier in (front, back)', true],
    ['tier notin (front)', false],
    ['managed-by', true],
    ['!missing', true],
    ['!app', false],
    ['managed-by=hyperfleet,app in (web)', true],
  ])('%s -> %s', (selector, expected) => {
    expect(parseLabelSelector(selector)(labels)).toBe(expected);
  });
  it('rejects malformed selectors', () => {
    expect(() => parseLabelSelector('app=(x')).toThrow(/unable to parse/);
  });
});

describe('server-side apply field ownership', () => {
  const t = '2026-01-01T00:00:00Z';
  const base = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', labels: { a: '1' } },
    data: { k: 'dg==' },
  };

  it('detects conflicts with another manager and moves ownership with force', () => {
    const owners = recordUpdate([], 'kubectl', {}, base, t);
    const applied = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', labels: { a: '2' } },
    };
    const blocked = applyFields(base, owners, 'job', applied, false, t);
    expect(blocked.conflicts).toEqual([{ manager: 'kubectl', field: '.metadata.labels.a' }]);
    const forced = applyFields(base, owners, 'job', applied, true, t);
    expect(forced.conflicts).toEqual([]);
    expect(forced.object.metadata).toEqual({ name: 's', labels: { a: '2' } });
    const rendered = renderManagedFields(forced.entries) as {
      manager: string;
      fieldsV1: unknown;
    }[];
    expect(rendered.find((e) => e.manager === 'job')?.fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { 'f:a': {} } },
    });
    expect(rendered.find((e) => e.manager === 'kubectl')?.fieldsV1).toEqual({
      'f:data': { 'f:k': {} },
    });
  });

  it('does not conflict when values agree, and removes fields a manager stops applying', () => {
    const first = applyFields(
      { metadata: { name: 's' } },
      [],
      'job',
      { metadata: { labels: { x: '1', y: '2' } } },
      false,
      t,
    );
    const second = applyFields(
      first.object,
      first.entries,
      'job',
      { metadata: { labels: { x: '1' } } },
      false,
      t,
    );
    expect(second.object.metadata).toEqual({ name: 's', labels: { x: '1' } });
    const shared = applyFields(
      second.object,
      second.entries,
      'other',
      { metadata: { labels: { x: '1' } } },
      false,
      t,
    );
    expect(shared.conflicts).toEqual([]);
  });
});
