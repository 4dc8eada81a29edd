import { loadCrdFixture } from '../kube-apiserver/crds/fixtures';

/** The CRDs HyperShift installs on a management cluster that the local stack needs: HostedCluster. */
export function hostedClusterCrds(): Record<string, unknown>[] {
  return [loadCrdFixture('hostedcluster')];
}
