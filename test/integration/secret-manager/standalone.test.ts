import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTracked } from '../../helpers/tracked-processes';
import { ROOT } from '../../helpers/run-process';
import { secretManagerClient } from '../../helpers/secret-manager';

const CLI = path.join(ROOT, 'dist/emulators/pullsecret/cli.js');

describe('npm run emulators -- secret-manager', () => {
  it('prints a ready line, serves the real client, stops on SIGTERM and keeps its data dir', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sm-cli-'));
    const start = () =>
      startTracked({
        command: process.execPath,
        args: [CLI, 'secret-manager', '--port', '0', '--data-dir', dataDir],
      });

    const first = await start();
    expect(first.info).toMatchObject({
      name: 'secret-manager',
      endpoint: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
    });
    const endpoint = first.info.endpoint as string;
    expect(first.info.env).toEqual({ SECRET_MANAGER_EMULATOR_HOST: endpoint });
    let client = secretManagerClient(endpoint);
    const [secret] = await client.createSecret({
      parent: 'projects/demo-project',
      secretId: 's1',
      secret: { replication: { automatic: {} } },
    });
    await client.addSecretVersion({ parent: secret.name, payload: { data: Buffer.from('kept') } });
    await client.close();
    await first.stop();
    expect(first.child.exitCode).toBe(0);

    const second = await start();
    client = secretManagerClient(second.info.endpoint as string);
    const [version] = await client.accessSecretVersion({ name: `${secret.name}/versions/1` });
    expect(version.payload?.data?.toString()).toBe('kept');
    await client.close();
    await second.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('rejects an unknown emulator name with usage and exit 2', async () => {
    await expect(
      startTracked({ command: process.execPath, args: [CLI, 'nope'], timeoutMs: 5000 }),
    ).rejects.toThrow(/exited \(2\)/);
  });
});
