import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

/** The CRDs HyperShift installs on a management cluster that the local stack needs (files beside this module's source). */
export const CRD_FIXTURES = { hostedcluster: 'hostedcluster.yaml' } as const;

/** The folder holding the YAML fixtures: beside the source, also when running compiled `dist/`. */
function fixturesDir(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'emulators', 'pullsecret', 'management-cluster');
    if (fs.existsSync(path.join(candidate, CRD_FIXTURES.hostedcluster))) return candidate;
    if (path.dirname(dir) === dir)
      throw new Error(
        `The CRD fixtures (emulators/pullsecret/management-cluster) were not found above ${__dirname}`,
      );
  }
}

/**
 * A CRD fixture as a plain object (what `kubectl apply -f` or a raw `POST` of the file sends).
 * With @kubernetes/client-node's typed ApiextensionsV1Api, pass `k8s.loadYaml(crdFixtureText(...))`
 * instead: its models rename some schema fields (`_enum`, `xKubernetesPreserveUnknownFields`) and
 * silently drop them from a plain object.
 */
export function loadCrdFixture(name: keyof typeof CRD_FIXTURES): Record<string, unknown> {
  const text = fs.readFileSync(path.join(fixturesDir(), CRD_FIXTURES[name]), 'utf8');
  const crd: unknown = YAML.parse(text);
  if (crd === null || typeof crd !== 'object' || Array.isArray(crd))
    throw new Error(`The CRD fixture ${CRD_FIXTURES[name]} is not a YAML object`);
  return crd as Record<string, unknown>;
}

/** The path of a fixture file, for `kubectl apply -f`. */
export const crdFixturePath = (name: keyof typeof CRD_FIXTURES): string =>
  path.join(fixturesDir(), CRD_FIXTURES[name]);

/** The fixture's YAML text. */
export const crdFixtureText = (name: keyof typeof CRD_FIXTURES): string =>
  fs.readFileSync(crdFixturePath(name), 'utf8');

/** The CRDs a management cluster of the local stack starts with: HostedCluster. */
export function hostedClusterCrds(): Record<string, unknown>[] {
  return [loadCrdFixture('hostedcluster')];
}
