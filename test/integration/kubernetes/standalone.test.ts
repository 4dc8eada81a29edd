import path from 'node:path';
import { startTracked } from '../../helpers/tracked-processes';
import { ROOT } from '../../helpers/run-process';
import { k8s } from '../../helpers/kubernetes';

describe('npm run emulators -- kube-apiserver', () => {
  it('writes a kubeconfig, prints its path in the ready line and seeds the given namespaces', async () => {
    const emulator = await startTracked({
      command: process.execPath,
      args: [
        path.join(ROOT, 'dist/emulators/pullsecret/cli.js'),
        'kube-apiserver',
        '--port',
        '0',
        'clusters-a',
        'clusters-b',
      ],
    });
    expect(emulator.info).toMatchObject({
      name: 'kube-apiserver',
      endpoint: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+$/),
      kubeconfig: expect.stringContaining('kubeconfig'),
    });
    const config = new k8s.KubeConfig();
    config.loadFromFile(emulator.info.kubeconfig as string);
    const namespaces = await config.makeApiClient(k8s.CoreV1Api).listNamespace();
    expect(namespaces.items.map((n) => n.metadata?.name)).toEqual([
      'default',
      'kube-system',
      'kube-public',
      'kube-node-lease',
      'clusters-a',
      'clusters-b',
    ]);
    await emulator.stop();
    expect(emulator.child.exitCode).toBe(0);
  });
});
