import https from 'node:https';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import { coreApi, dockerConfig, failureOf, k8s } from '../../helpers/kubernetes';

const NS = 'clusters-strict';

/** A request as kubectl sends it (the typed client drops fields its model does not know). */
function raw(
  emulator: KubeApiServerEmulator,
  method: string,
  path: string,
  body: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: { reason?: string; message?: string } }> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      new URL(path, emulator.endpoint),
      {
        method,
        ca: emulator.caPem,
        headers: { authorization: `Bearer ${emulator.adminToken}`, 'content-type': contentType },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as object }),
        );
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

/** Each rule is checked against the emulator through the real client, with the real Status shape. */
describe('Kubernetes API emulator: the API server rules it enforces', () => {
  let emulator: KubeApiServerEmulator;
  let api: k8s.CoreV1Api;

  beforeAll(async () => {
    emulator = await startKubeApiServerEmulator({
      namespaces: [NS],
      rbac: {
        'scoped-token-123456': {
          user: 'system:serviceaccount:hyperfleet:scoped',
          rules: [{ resources: ['secrets'], verbs: ['*'], namespaces: [NS] }],
        },
      },
    });
    api = coreApi(emulator);
  });
  afterAll(() => emulator.stop());

  const namespaceWith = (metadata: k8s.V1ObjectMeta) =>
    failureOf(api.createNamespace({ body: { metadata } }));

  describe('labels and annotations (422 Invalid, details.causes with field paths)', () => {
    it('accepts qualified names with a DNS-subdomain prefix, 63-character parts and empty values', async () => {
      const created = await api.createNamespace({
        body: {
          metadata: {
            name: 'labels-ok',
            labels: {
              'example.com/My_Name.1': '',
              [`${'p'.repeat(63)}.${'q'.repeat(60)}/${'n'.repeat(63)}`]: 'v'.repeat(63),
              plain: 'Value_1.2-3',
            },
            annotations: { 'Example.COM/Mixed-Case': 'any text, even with spaces!' },
          },
        },
      });
      expect(created.metadata?.labels?.plain).toBe('Value_1.2-3');
    });

    it.each<[string, k8s.V1ObjectMeta, string, string]>([
      [
        'a label key starting with a dash',
        { labels: { '-bad': 'v' } },
        'metadata.labels',
        'Invalid value: "-bad": name part must consist of alphanumeric characters',
      ],
      [
        'a label name part of 64 characters',
        { labels: { ['n'.repeat(64)]: 'v' } },
        'metadata.labels',
        'name part must be no more than 63 characters',
      ],
      [
        'a label prefix that is not a DNS subdomain',
        { labels: { 'Example.com/name': 'v' } },
        'metadata.labels',
        'prefix part a lowercase RFC 1123 subdomain',
      ],
      [
        'a label prefix of 254 characters',
        {
          labels: {
            [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}/n`]: 'v',
          },
        },
        'metadata.labels',
        'prefix part must be no more than 253 characters',
      ],
      [
        'two slashes in a label key',
        { labels: { 'a/b/c': 'v' } },
        'metadata.labels',
        'a qualified name must consist of',
      ],
      [
        'a label value with a space',
        { labels: { ok: 'bad value' } },
        'metadata.labels',
        'Invalid value: "bad value": a valid label must be an empty string',
      ],
      [
        'a label value of 64 characters',
        { labels: { ok: 'v'.repeat(64) } },
        'metadata.labels',
        'must be no more than 63 characters',
      ],
      [
        'an annotation key with a space',
        { annotations: { 'bad key': 'v' } },
        'metadata.annotations',
        'Invalid value: "bad key": name part must consist of',
      ],
      [
        'annotations over 256 KiB in total',
        { annotations: { big: 'x'.repeat(256 * 1024) } },
        'metadata.annotations',
        'Too long: must have at most 262144 bytes',
      ],
    ])('rejects %s', async (_, metadata, field, message) => {
      const failure = await namespaceWith({ name: 'labels-bad', ...metadata });
      expect(failure).toMatchObject({ code: 422, reason: 'Invalid' });
      expect(failure.message).toMatch(/^Namespace "labels-bad" is invalid: /);
      expect(failure.details).toMatchObject({ name: 'labels-bad', kind: 'Namespace' });
      expect(failure.details?.causes).toEqual(
        expect.arrayContaining([expect.objectContaining({ field })]),
      );
      expect(failure.details?.causes?.map((c) => c.message).join('\n')).toContain(message);
      expect(await failureOf(api.readNamespace({ name: 'labels-bad' }))).toMatchObject({
        code: 404,
      });
    });

    it('applies the same rules to Secrets, on create and on patch', async () => {
      const created = await failureOf(
        api.createNamespacedSecret({
          namespace: NS,
          body: { metadata: { name: 's', labels: { 'bad/key/x': 'v' } }, data: {} },
        }),
      );
      expect(created).toMatchObject({ code: 422, reason: 'Invalid' });
      expect(created.details?.causes?.[0]).toMatchObject({
        field: 'metadata.labels',
        reason: 'FieldValueInvalid',
      });
      await api.createNamespacedSecret({
        namespace: NS,
        body: {
          metadata: { name: 'labelled' },
          type: 'kubernetes.io/dockerconfigjson',
          data: dockerConfig(),
        },
      });
      const patched = await failureOf(
        api.patchNamespacedSecret(
          {
            namespace: NS,
            name: 'labelled',
            body: { metadata: { annotations: { ['x'.repeat(64)]: 'too long a name part' } } },
          },
          k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
        ),
      );
      expect(patched).toMatchObject({ code: 422 });
      expect(patched.details?.causes?.[0]?.field).toBe('metadata.annotations');
    });
  });

  describe('authorization runs before the namespace lookup', () => {
    const scoped = () => coreApi(emulator, 'scoped-token-123456');

    it('a request the caller may not make is 403 even when the namespace does not exist', async () => {
      const denied = [
        await failureOf(
          scoped().createNamespacedSecret({
            namespace: 'does-not-exist',
            body: { metadata: { name: 's' }, stringData: { k: 'v' } },
          }),
        ),
        await failureOf(scoped().readNamespacedSecret({ namespace: 'does-not-exist', name: 's' })),
        await failureOf(scoped().readNamespace({ name: 'does-not-exist' })),
        await failureOf(
          scoped().patchNamespace(
            { name: 'does-not-exist', body: { metadata: { labels: { a: 'b' } } } },
            k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
          ),
        ),
      ];
      expect(denied.map((d) => `${d.code} ${d.reason}`)).toEqual(Array(4).fill('403 Forbidden'));
      expect(denied[0]!.message).toBe(
        'secrets is forbidden: User "system:serviceaccount:hyperfleet:scoped" cannot create resource "secrets" in API group "" in the namespace "does-not-exist"',
      );
    });

    it('a caller with the right learns that the namespace is missing (404)', async () => {
      expect(
        await failureOf(
          api.createNamespacedSecret({
            namespace: 'does-not-exist',
            body: { metadata: { name: 's' }, stringData: { k: 'v' } },
          }),
        ),
      ).toMatchObject({ code: 404, message: 'namespaces "does-not-exist" not found' });
      expect(
        await failureOf(scoped().readNamespacedSecret({ namespace: NS, name: 'absent' })),
      ).toMatchObject({ code: 404, message: 'secrets "absent" not found' });
    });
  });

  describe('namespaces: update, patch and server-side apply', () => {
    const apply = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);
    const manifest = (labels: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'applied', labels },
    });

    it('server-side apply creates (201), owns fields, conflicts (409) and forces', async () => {
      const created = await api.patchNamespace(
        { name: 'applied', body: manifest({ team: 'a' }), fieldManager: 'platform' },
        apply,
      );
      expect(created.metadata?.labels).toEqual({ team: 'a' });
      expect(created.status?.phase).toBe('Active');
      expect(created.metadata?.managedFields?.[0]).toMatchObject({
        manager: 'platform',
        operation: 'Apply',
      });
      const conflict = await failureOf(
        api.patchNamespace(
          { name: 'applied', body: manifest({ team: 'b' }), fieldManager: 'other' },
          apply,
        ),
      );
      expect(conflict).toMatchObject({ code: 409, reason: 'Conflict' });
      expect(conflict.details?.causes?.[0]).toMatchObject({
        reason: 'FieldManagerConflict',
        field: '.metadata.labels.team',
      });
      const forced = await api.patchNamespace(
        { name: 'applied', body: manifest({ team: 'b' }), fieldManager: 'other', force: true },
        apply,
      );
      expect(forced.metadata?.labels).toEqual({ team: 'b' });
    });

    it('strategic merge patch and PUT keep the server-owned status; a stale resourceVersion is 409', async () => {
      const before = await api.readNamespace({ name: 'applied' });
      const patched = await api.patchNamespace(
        { name: 'applied', body: { metadata: { annotations: { note: 'n' } } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
      );
      expect(patched.metadata?.annotations).toEqual({ note: 'n' });
      expect(patched.metadata?.labels).toEqual({ team: 'b' });
      const replaced = await api.replaceNamespace({
        name: 'applied',
        body: { metadata: { name: 'applied', labels: { only: 'this' } }, status: { phase: 'X' } },
      });
      expect(replaced.metadata?.labels).toEqual({ only: 'this' });
      expect(replaced.status?.phase).toBe('Active');
      expect(
        await failureOf(
          api.replaceNamespace({
            name: 'applied',
            body: {
              metadata: { name: 'applied', resourceVersion: before.metadata?.resourceVersion },
            },
          }),
        ),
      ).toMatchObject({ code: 409, reason: 'Conflict' });
    });

    it('JSON patch (RFC 6902): test guards the resourceVersion, replace and add apply', async () => {
      const current = await api.readNamespace({ name: 'applied' });
      const version = current.metadata?.resourceVersion;
      const ok = await raw(
        emulator,
        'PATCH',
        '/api/v1/namespaces/applied',
        [
          { op: 'test', path: '/metadata/resourceVersion', value: version },
          { op: 'add', path: '/metadata/labels/added', value: 'yes' },
        ],
        'application/json-patch+json',
      );
      expect(ok.status).toBe(200);
      const stale = await raw(
        emulator,
        'PATCH',
        '/api/v1/namespaces/applied',
        [
          { op: 'test', path: '/metadata/resourceVersion', value: version },
          { op: 'replace', path: '/metadata/labels/added', value: 'again' },
        ],
        'application/json-patch+json',
      );
      expect(stale).toMatchObject({ status: 422, body: { reason: 'Invalid' } });
      expect(stale.body.message).toContain('testing value /metadata/resourceVersion failed');
      expect((await api.readNamespace({ name: 'applied' })).metadata?.labels?.added).toBe('yes');
    });

    it('fieldValidation=Strict rejects unknown fields (400), as kubectl asks by default', async () => {
      const body = {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'strict' },
        spec: { surprise: true },
        extra: 1,
      };
      const strict = await raw(emulator, 'POST', '/api/v1/namespaces?fieldValidation=Strict', body);
      expect(strict).toMatchObject({
        status: 400,
        body: {
          reason: 'BadRequest',
          message: 'strict decoding error: unknown field "spec.surprise", unknown field "extra"',
        },
      });
      const patch = await raw(
        emulator,
        'PATCH',
        `/api/v1/namespaces/${NS}/secrets/labelled?fieldValidation=Strict`,
        { metadata: { labelz: {} } },
        'application/merge-patch+json',
      );
      expect(patch).toMatchObject({
        status: 400,
        body: { message: 'strict decoding error: unknown field "metadata.labelz"' },
      });
      const lenient = await raw(
        emulator,
        'POST',
        '/api/v1/namespaces?fieldValidation=Ignore',
        body,
      );
      expect(lenient.status).toBe(201);
    });
  });
});
