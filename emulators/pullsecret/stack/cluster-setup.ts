import type { SetupObject } from './management-clusters';

/** Where an object of this apiVersion and kind is created (cluster-scoped kinds only). */
const COLLECTIONS: Record<string, string> = {
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy':
    '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding':
    '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
  'apiextensions.k8s.io/v1/CustomResourceDefinition':
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
};

/** The POST target of a cluster-scoped setup object; an unknown kind is a programming error. */
function setupObject(object: Record<string, unknown>): SetupObject {
  const key = `${String(object.apiVersion)}/${String(object.kind)}`;
  const collection = COLLECTIONS[key];
  if (!collection) throw new Error(`The stack does not know where to create a ${key}`);
  return { collection, object };
}

/**
 * What every local management cluster gets at start besides the job's RBAC and fence (applied
 * from Terraform's templates, cluster-rbac.ts): the HostedCluster CRD HyperShift installs.
 */
export function managementClusterSetup(crds: readonly Record<string, unknown>[]): SetupObject[] {
  return crds.map(setupObject);
}
