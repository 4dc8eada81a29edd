// The local stack renders Terraform's RBAC and fence templates itself (no terraform at start-up):
// the renderer's subset of templatefile(), and a comparison with Terraform's own rendering of the
// management-clusters module's `rbac` output for the same inputs, so the two cannot drift.
import path from 'node:path';
import { renderTerraformTemplate } from '../../../emulators/common/terraform-template';
import { renderClusterRbac, renderFence } from '../../../emulators/pullsecret/stack/cluster-rbac';
import { DEFAULT_LAYOUT, type NamespaceLayout } from '../../../shared/pull-secret/namespace-layout';
import { ROOT } from '../../helpers/run-process';
import { TERRAFORM_ROOT } from '../../helpers/terraform';
import { TerraformModuleHarness } from '../../helpers/terraform-run';
import { describeWithTool } from '../../helpers/required-tools';

describe('renderTerraformTemplate', () => {
  it('interpolates variables and keeps $${ and %%{ literal', () => {
    expect(renderTerraformTemplate('a ${x} $${y} %%{z}', { x: 'X' })).toBe('a X ${y} %{z}');
  });

  it('~ strips every whitespace character on its side, newlines included', () => {
    expect(renderTerraformTemplate('a\n%{ if on ~}\n\n  b\n%{~ endif }\nc', { on: true })).toBe(
      'a\nb\nc',
    );
    expect(renderTerraformTemplate('a\n%{ if on ~}\nb\n%{ endif ~}\nc', { on: false })).toBe(
      'a\nc',
    );
  });

  it('loops over a list, nested in a condition; an empty list renders nothing', () => {
    const template = '%{ if on ~}\n%{ for n in names ~}\n- ${n}\n%{ endfor ~}\n%{ endif ~}\nend';
    expect(renderTerraformTemplate(template, { on: true, names: ['a', 'b'] })).toBe(
      '- a\n- b\nend',
    );
    expect(renderTerraformTemplate(template, { on: true, names: [] })).toBe('end');
  });

  it('refuses what it does not implement, by name, instead of rendering it differently', () => {
    expect(() => renderTerraformTemplate('${upper(x)}', { x: 'a' })).toThrow(
      /unsupported interpolation "\$\{upper\(x\)\}"/,
    );
    expect(() => renderTerraformTemplate('%{ if a }x%{ else }y%{ endif }', { a: true })).toThrow(
      /unsupported directive "%\{ else \}"/,
    );
    expect(() => renderTerraformTemplate('${missing}', {})).toThrow(
      /variable "missing" is not given/,
    );
    expect(() => renderTerraformTemplate('%{ if a }x', { a: true })).toThrow(
      /missing %\{ endif \}/,
    );
  });
});

const MODULE = path.join(TERRAFORM_ROOT, 'modules/pullsecret-adapter/modules/management-clusters');
const JOB = 'pullsecret-job@platform-project.iam.gserviceaccount.com';
const PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----\n';

describeWithTool('terraform', 'the stack renders what Terraform renders', () => {
  let harness: TerraformModuleHarness;
  beforeAll(() => {
    harness = new TerraformModuleHarness(MODULE, [
      'management_clusters',
      'job_identity',
      'namespace_layout',
    ]);
  });
  afterAll(() => harness?.dispose());

  it.each([
    ['cluster-wide (fenced)', undefined],
    ['per namespace', ['clusters-a', 'clusters-b']],
  ])(
    '%s: byte for byte the module output an operator pipes into kubectl apply',
    (_, namespaces) => {
      const cluster = {
        kind: 'gke',
        endpoint: 'https://34.123.45.67',
        ca_certificate: Buffer.from(PEM).toString('base64'),
        project: 'mgmt-project-1',
        location: 'us-central1',
        cluster_name: 'mgmt',
        ...(namespaces ? { namespaces } : {}),
      };
      const result = harness.apply({
        management_clusters: { 'mgmt-1': cluster },
        job_identity: JOB,
      });
      if (!result.ok) throw new Error(result.diagnostics);
      const outputs = result.outputs as { rbac: Record<string, string>; fence: string };
      // The fence alone, applied first (kubectl goes on after a failed object).
      expect(renderFence(ROOT, JOB)).toBe(outputs.fence);
      expect(
        renderClusterRbac(ROOT, {
          cluster: 'mgmt-1',
          jobIdentity: JOB,
          namespaces: namespaces ?? null,
          credentialsCommand:
            'gcloud container clusters get-credentials mgmt --location us-central1 --project mgmt-project-1',
        }),
      ).toBe(outputs.rbac['mgmt-1']);
      // The fence comes first: kubectl applies in order, so no binding ever exists unfenced.
      const kinds = [...outputs.rbac['mgmt-1']!.matchAll(/^kind: (\w+)$/gm)].map((m) => m[1]);
      expect(kinds.slice(0, 3)).toEqual([
        'ValidatingAdmissionPolicy',
        'ValidatingAdmissionPolicyBinding',
        'ClusterRole',
      ]);
    },
  );

  it.each<[string, NamespaceLayout]>([
    ['one namespace per cluster (default)', DEFAULT_LAYOUT],
    ["one shared namespace (seed 004's clusters)", { template: 'clusters' }],
    ['a prefix and a suffix around {id}', { template: 'hc-{id}-ps' }],
    ['{id} first, a suffix after it', { template: '{id}-ps' }],
    [
      'migrating to the shared namespace, keeping the previous copy',
      { template: 'clusters', migration: { previous: 'clusters-{id}', phase: 'keep-previous' } },
    ],
    [
      'migrating back, removing the previous copies',
      { template: 'clusters-{id}', migration: { previous: 'clusters', phase: 'remove-previous' } },
    ],
  ])('the fence for %s: byte for byte what Terraform renders', (_, layout) => {
    const result = harness.apply({
      management_clusters: {
        'mgmt-1': {
          kind: 'gke',
          endpoint: 'https://34.123.45.67',
          ca_certificate: Buffer.from(PEM).toString('base64'),
          project: 'mgmt-project-1',
          location: 'us-central1',
          cluster_name: 'mgmt',
        },
      },
      job_identity: JOB,
      namespace_layout: layout,
    });
    if (!result.ok) throw new Error(result.diagnostics);
    const outputs = result.outputs as { fence: string };
    expect(renderFence(ROOT, JOB, layout)).toBe(outputs.fence);
  });
});
