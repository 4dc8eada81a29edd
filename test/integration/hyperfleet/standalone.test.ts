import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTracked } from '../../helpers/tracked-processes';
import { ROOT } from '../../helpers/run-process';

describe('npm run emulators -- hyperfleet-api', () => {
  it('starts alone with the ready-line convention and serves the API', async () => {
    const emulator = await startTracked({
      command: process.execPath,
      args: [
        path.join(ROOT, 'dist/emulators/pullsecret/cli.js'),
        'hyperfleet-api',
        '--port',
        '0',
        '--simulate-adapters',
      ],
    });
    expect(emulator.info).toMatchObject({
      name: 'hyperfleet-api',
      endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    try {
      const base = `${emulator.info.endpoint as string}/api/hyperfleet/v1`;
      const created = await fetch(`${base}/clusters`, {
        method: 'POST',
        body: JSON.stringify({ kind: 'Cluster', name: 'standalone', spec: {} }),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const statuses = (await (await fetch(`${base}/clusters/${id}/statuses`)).json()) as {
        items: { adapter: string; data?: { namespace?: string } }[];
      };
      expect(statuses.items.map((s) => s.adapter).sort()).toEqual([
        'dns',
        'placement',
        'validation',
      ]);
      expect(statuses.items.find((s) => s.adapter === 'placement')?.data?.namespace).toBe(
        `clusters-${id}`,
      );
    } finally {
      await emulator.stop();
    }
  });

  it('--token-file, --tenancy and --spec-schema gcp turn on what the local stack runs with', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hf-token-'));
    const tokenFile = path.join(dir, 'token');
    fs.writeFileSync(tokenFile, 'stack-token\n', { mode: 0o600 });
    const emulator = await startTracked({
      command: process.execPath,
      args: [
        path.join(ROOT, 'dist/emulators/pullsecret/cli.js'),
        'hyperfleet-api',
        '--port',
        '0',
        '--token-file',
        tokenFile,
        '--tenancy',
        '--spec-schema',
        'gcp',
      ],
    });
    try {
      const base = `${emulator.info.endpoint as string}/api/hyperfleet/v1`;
      const code = async (init: RequestInit, target = `${base}/clusters`) => {
        const answer = await fetch(target, init);
        return `${answer.status} ${((await answer.json()) as { code?: string }).code ?? ''}`;
      };
      const auth = { authorization: 'Bearer stack-token' };
      expect(await code({}, `${emulator.info.endpoint as string}/api/hyperfleet/v9/clusters`)).toBe(
        '404 HYPERFLEET-NTF-000',
      );
      expect(await code({})).toBe('401 HYPERFLEET-AUT-001');
      expect(await code({ headers: auth })).toBe('403 HYPERFLEET-AUZ-001');
      const create = (spec: unknown) =>
        code({
          method: 'POST',
          headers: { ...auth, 'X-HyperFleet-Org': 'local-dev' },
          body: JSON.stringify({
            kind: 'Cluster',
            name: `spec-${Object.keys(spec as object).length}`,
            spec,
          }),
        });
      expect(await create({})).toBe('400 HYPERFLEET-VAL-000');
      expect(await create({ platform: { type: 'gcp', gcp: { projectID: 'p' } } })).toBe('201 ');
    } finally {
      await emulator.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
