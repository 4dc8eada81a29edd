import fs from 'node:fs';
import path from 'node:path';
import { chunkHolding, readBundleMetafile } from '../../helpers/bundle-metafile';
import { ROOT } from '../../helpers/run-process';

// What the bundles leave out on purpose (scripts/bundle.cjs, docs/performance.md): each
// was measured in start time or memory, and each comes back silently with an innocent import.
const BUNDLES = ['adapter', 'reporter', 'pull-secret-job'] as const;
const inputsOf = (bundle: string): string[] =>
  Object.values(readBundleMetafile(bundle).outputs).flatMap((output) => Object.keys(output.inputs));
const outputFiles = (bundle: string): string[] =>
  Object.keys(readBundleMetafile(bundle).outputs)
    .filter((file) => file.endsWith('.mjs'))
    .map((file) => path.join(ROOT, file));

describe.each(BUNDLES)('the %s bundle', (bundle) => {
  it('holds no generated static protobuf classes of a Google client (protos/protos.js)', () => {
    expect(inputsOf(bundle).filter((input) => input.endsWith('build/protos/protos.js'))).toEqual(
      [],
    );
  });

  it("holds zod's English messages and no other locale", () => {
    const locales = inputsOf(bundle).filter((input) => input.includes('/zod/v4/locales/'));
    expect(locales.map((input) => path.basename(input))).toEqual(['en.js']);
  });

  it('holds neither whatwg-url nor tr46 (node-fetch gets Node’s URL)', () => {
    expect(inputsOf(bundle).filter((input) => /\/(whatwg-url|tr46)\//.test(input))).toEqual([]);
  });

  it('loads Node built-ins with require(), never through an ES module import', () => {
    for (const file of outputFiles(bundle)) {
      const imports = fs.readFileSync(file, 'utf8').match(/from\s*["']node:[a-z_/]+["']/g) ?? [];
      // The banner's one import of node:module (to make `require`) is the only one.
      expect({
        file: path.basename(file),
        imports: imports.filter((i) => !/node:module/.test(i)),
      }).toEqual({ file: path.basename(file), imports: [] });
    }
  });
});

describe('the job bundle', () => {
  it('holds only the Kubernetes client it uses: CoreV1Api, not the other API groups', () => {
    const chunk = chunkHolding('pull-secret-job', '@kubernetes/client-node/');
    const source = fs.readFileSync(chunk, 'utf8');
    expect(source).toContain('readNamespacedSecret');
    for (const unused of ['AppsV1Api', 'BatchV1Api', 'RbacAuthorizationV1Api'])
      expect(source).not.toContain(unused);
  });
});

describe('the adapter bundle', () => {
  // The Cloud Tasks client reads its JSON through a run-time path; scripts/bundle.cjs makes each
  // read static. Left to run time, the shipped adapter's first launch could not load its client.
  it('holds the Cloud Tasks client with its JSON, and reads none of it at run time', () => {
    const inputs = inputsOf('adapter');
    for (const json of ['v2/cloud_tasks_client_config.json', 'protos/protos.json', 'package.json'])
      expect(inputs.some((i) => i.includes('@google-cloud/tasks/') && i.endsWith(json))).toBe(true);
    const source = fs.readFileSync(chunkHolding('adapter', '@google-cloud/tasks/'), 'utf8');
    expect(source).not.toContain('cloud_tasks_client_config.json');
    // Only the v2 client the adapter uses: not the package's index with v2beta2 and v2beta3.
    expect(inputs.filter((i) => /@google-cloud\/tasks\/.*v2beta/.test(i))).toEqual([]);
  });
});
