import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { crdFixturePath } from '../../../emulators/pullsecret/management-cluster/hosted-cluster-crd';
import { renderFenceYaml } from '../../../emulators/pullsecret/management-cluster/fence-policy';
import {
  startKubeApiServerEmulator,
  type KubeApiServerEmulator,
} from '../../../emulators/kube-apiserver/server';
import { describeWithTool } from '../../helpers/required-tools';
import { request } from './kube-clients';

const run = promisify(execFile);

/**
 * kubectl against the emulator's CRD support, as an operator would use it: `kubectl apply -f` of
 * the HostedCluster CRD and of a HostedCluster (create, then merge-patch), discovery through
 * short names (`kubectl get hc`), `kubectl get hostedclusters -A`, server-side rejections, and
 * the fence applied from its rendered YAML. Needs kubectl on PATH (test/helpers/required-tools.ts).
 */
const NS = 'clusters-kubectl';

const hostedCluster = (image: string, extra = '') => `apiVersion: hypershift.openshift.io/v1beta1
kind: HostedCluster
metadata:
  name: demo
  namespace: ${NS}
spec:
  pullSecret:
    name: demo-pull-secret
  release:
    image: ${image}
  platform:
    type: None
${extra}`;

describeWithTool('kubectl', 'kubectl and custom resources in the Kubernetes emulator', () => {
  let emulator: KubeApiServerEmulator;
  let dir: string;

  beforeAll(async () => {
    emulator = await startKubeApiServerEmulator({ namespaces: [NS, 'clusters-other'] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubectl-crd-'));
  });
  afterAll(async () => {
    await emulator.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const kubectl = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run('kubectl', args, {
        env: { ...process.env, KUBECONFIG: emulator.kubeconfigPath, HOME: dir },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  const apply = (manifest: string) => {
    const file = path.join(dir, 'manifest.yaml');
    fs.writeFileSync(file, manifest);
    return kubectl('apply', '-f', file);
  };

  it('applies the CRD fixture and lists it', async () => {
    expect(await kubectl('apply', '-f', crdFixturePath('hostedcluster'))).toMatchObject({
      code: 0,
      stdout:
        'customresourcedefinition.apiextensions.k8s.io/hostedclusters.hypershift.openshift.io created\n',
    });
    const crds = await kubectl('get', 'crd', '-o', 'name');
    expect(crds.stdout).toBe(
      'customresourcedefinition.apiextensions.k8s.io/hostedclusters.hypershift.openshift.io\n',
    );
    const established = await kubectl(
      'get',
      'crd',
      'hostedclusters.hypershift.openshift.io',
      '-o',
      'jsonpath={.status.conditions[?(@.type=="Established")].status}',
    );
    expect(established.stdout).toBe('True');
  });

  it('applies a HostedCluster (created, configured, unchanged) and finds it by plural and short name', async () => {
    expect((await apply(hostedCluster('quay.io/ocp-release:4.17.0'))).stdout).toBe(
      'hostedcluster.hypershift.openshift.io/demo created\n',
    );
    expect((await apply(hostedCluster('quay.io/ocp-release:4.17.1'))).stdout).toBe(
      'hostedcluster.hypershift.openshift.io/demo configured\n',
    );
    expect((await apply(hostedCluster('quay.io/ocp-release:4.17.1'))).stdout).toBe(
      'hostedcluster.hypershift.openshift.io/demo unchanged\n',
    );
    const all = await kubectl(
      'get',
      'hostedclusters',
      '-A',
      '-o',
      'custom-columns=NS:.metadata.namespace,NAME:.metadata.name,IMAGE:.spec.release.image,GEN:.metadata.generation',
    );
    expect(all.stdout.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^NS\s+NAME\s+IMAGE\s+GEN$/),
      expect.stringMatching(new RegExp(`^${NS}\\s+demo\\s+quay.io/ocp-release:4.17.1\\s+2$`)),
    ]);
    const short = await kubectl('get', 'hc', '-n', NS, '-o', 'name');
    expect(short.stdout).toBe('hostedcluster.hypershift.openshift.io/demo\n');
    expect((await kubectl('get', 'hc', '-n', 'clusters-other')).stderr).toBe(
      `No resources found in clusters-other namespace.\n`,
    );
  });

  it('prints the CRD printer columns in kubectl get (server-side Table), status included', async () => {
    await request(
      emulator,
      'PATCH',
      `/apis/hypershift.openshift.io/v1beta1/namespaces/${NS}/hostedclusters/demo/status`,
      {
        contentType: 'application/merge-patch+json',
        body: {
          status: {
            kubeconfig: { name: 'demo-admin-kubeconfig' },
            version: { history: [{ state: 'Completed', version: '4.17.1' }] },
            conditions: [{ type: 'Available', status: 'True' }],
          },
        },
      },
    );
    const table = await kubectl('get', 'hostedclusters', '-A');
    expect(
      table.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.trim().split(/\s+/)),
    ).toEqual([
      ['NAMESPACE', 'NAME', 'VERSION', 'KUBECONFIG', 'PROGRESS', 'AVAILABLE'],
      [NS, 'demo', '4.17.1', 'demo-admin-kubeconfig', 'Completed', 'True'],
    ]);
  });

  it('reports what the server rejects: schema errors (422) and unknown fields (strict)', async () => {
    const invalid = await apply(hostedCluster('quay.io/x').replace('type: None', 'type: Mars'));
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toContain('spec.platform.type: Unsupported value: "Mars"');
    const unknown = await apply(hostedCluster('quay.io/ocp-release:4.17.1', 'bogusTopLevel: 1\n'));
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('unknown field "bogusTopLevel"');
  });

  it('applies the rendered fence, and deletes custom resources', async () => {
    // The YAML Terraform outputs, applied as an operator would apply it.
    const fence = renderFenceYaml('pullsecret-job@local-project.iam.gserviceaccount.com');
    expect((await apply(fence)).stdout).toBe(
      'validatingadmissionpolicy.admissionregistration.k8s.io/hyperfleet-pullsecret-fence created\n' +
        'validatingadmissionpolicybinding.admissionregistration.k8s.io/hyperfleet-pullsecret-fence created\n',
    );
    expect((await kubectl('delete', 'hc', 'demo', '-n', NS)).stdout).toBe(
      'hostedcluster.hypershift.openshift.io "demo" deleted\n',
    );
    expect((await kubectl('get', 'hostedclusters', '-A')).stderr).toBe('No resources found\n');
  });
});
