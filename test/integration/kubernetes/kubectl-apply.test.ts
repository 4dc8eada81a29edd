import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import { coreApi } from '../../helpers/kubernetes';
import { describeWithTool } from '../../helpers/required-tools';

const run = promisify(execFile);

/**
 * `kubectl apply`, client-side (GET, then POST or a strategic merge PATCH carrying the
 * last-applied annotation) and server-side (PATCH application/apply-patch+yaml with fieldManager
 * and force), against the emulator, on namespaces and secrets. Needs kubectl on PATH
 * (test/helpers/required-tools.ts).
 */

describeWithTool('kubectl', 'kubectl apply against the Kubernetes emulator', () => {
  let emulator: KubeApiServerEmulator;
  let dir: string;

  beforeAll(async () => {
    emulator = await startKubeApiServerEmulator({ namespaces: ['clusters-k'] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubectl-apply-'));
  });
  afterAll(async () => {
    await emulator.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const kubectl = async (manifest: string, ...args: string[]) => {
    const file = path.join(dir, 'manifest.yaml');
    fs.writeFileSync(file, manifest);
    try {
      const { stdout, stderr } = await run('kubectl', ['apply', '-f', file, ...args], {
        env: { ...process.env, KUBECONFIG: emulator.kubeconfigPath, HOME: dir },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const namespace = (labels: Record<string, string>, name = 'team-ns') =>
    `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n  labels:\n${Object.entries(
      labels,
    )
      .map(([k, v]) => `    ${k}: "${v}"`)
      .join('\n')}\n`;
  const writes = () =>
    emulator.requests
      .list()
      .filter((r) => r.target.startsWith('/api/v1/namespaces'))
      .map((r) => `${r.method} ${r.outcome}`);

  it('client-side: creates, then patches with the last-applied annotation and removes dropped labels', async () => {
    emulator.requests.clear();
    expect(await kubectl(namespace({ team: 'a', tier: 'gold' }))).toMatchObject({
      code: 0,
      stdout: 'namespace/team-ns created\n',
    });
    expect(writes()).toEqual(['GET 404', 'POST 201']);
    emulator.requests.clear();
    expect(await kubectl(namespace({ team: 'b' }))).toMatchObject({
      code: 0,
      stdout: 'namespace/team-ns configured\n',
    });
    expect(writes()).toEqual(['GET 200', 'PATCH 200']);
    const ns = await coreApi(emulator).readNamespace({ name: 'team-ns' });
    expect(ns.metadata?.labels).toEqual({ team: 'b' });
    expect(
      JSON.parse(
        ns.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? '{}',
      ),
    ).toMatchObject({ kind: 'Namespace', metadata: { labels: { team: 'b' } } });
    expect((await kubectl(namespace({ team: 'b' }))).stdout).toBe('namespace/team-ns unchanged\n');
  });

  it('server-side: takes over from client-side apply, conflicts with another manager, forces', async () => {
    const migrated = await kubectl(namespace({ team: 'b' }), '--server-side');
    expect(migrated).toMatchObject({ code: 0, stdout: 'namespace/team-ns serverside-applied\n' });
    expect(migrated.stderr).toBe('');
    const conflict = await kubectl(
      namespace({ team: 'c' }),
      '--server-side',
      '--field-manager=ops',
    );
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('conflict with "kubectl"');
    expect(conflict.stderr).toContain('.metadata.labels.team');
    const forced = await kubectl(
      namespace({ team: 'c' }),
      '--server-side',
      '--field-manager=ops',
      '--force-conflicts',
    );
    expect(forced.code).toBe(0);
    const ns = await coreApi(emulator).readNamespace({ name: 'team-ns' });
    expect(ns.metadata?.labels?.team).toBe('c');
    expect(ns.metadata?.managedFields?.map((m) => `${m.manager}:${m.operation}`)).toContain(
      'ops:Apply',
    );
    const created = await kubectl(namespace({ team: 'd' }, 'ssa-created'), '--server-side');
    expect(created).toMatchObject({
      code: 0,
      stdout: 'namespace/ssa-created serverside-applied\n',
    });
  });

  it('applies secrets both ways', async () => {
    const secret = (value: string) =>
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\n  namespace: clusters-k\nstringData:\n  token: ${value}\n`;
    expect((await kubectl(secret('one'))).stdout).toBe('secret/app created\n');
    expect((await kubectl(secret('two'))).stdout).toBe('secret/app configured\n');
    expect((await kubectl(secret('three'), '--server-side')).stdout).toBe(
      'secret/app serverside-applied\n',
    );
    const read = await coreApi(emulator).readNamespacedSecret({
      namespace: 'clusters-k',
      name: 'app',
    });
    expect(Buffer.from(read.data?.token ?? '', 'base64').toString()).toBe('three');
  });

  it('reports what the server rejects: unknown fields (strict validation) and invalid labels', async () => {
    const unknown = await kubectl(
      'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: odd\nspec:\n  surprise: 1\n',
    );
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('strict decoding error: unknown field "spec.surprise"');
    const invalid = await kubectl(namespace({ 'bad key': 'x' }, 'invalid-labels'));
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toContain('The Namespace "invalid-labels" is invalid');
    expect(invalid.stderr).toContain('metadata.labels: Invalid value: "bad key"');
  });
});
