import path from 'node:path';
import { startTracked } from '../../helpers/tracked-processes';
import { ROOT } from '../../helpers/run-process';

describe('npm run emulators -- hyperfleet-api', () => {
  it('starts alone with the ready-line convention and serves the API', async () => {
    const emulator = await startTracked({
      command: process.execPath,
      args: [
        path.join(ROOT, 'dist/emulators/cli.js'),
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
});
