import type * as k8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import type { ClusterSecret, DesiredClusterSecret } from './cluster-secrets';

const DOCKER_CONFIG_JSON = '.dockerconfigjson';
const SECRET_TYPE = 'kubernetes.io/dockerconfigjson';

export function toBody(secret: DesiredClusterSecret): k8s.V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secret.name,
      namespace: secret.namespace,
      labels: { ...secret.labels },
      annotations: { ...secret.annotations },
    },
    type: SECRET_TYPE,
    data: { [DOCKER_CONFIG_JSON]: secret.dockerConfigJson.toString('base64') },
  };
}

/** The merge patch of the fields we own; maps merge key by key, so other keys stay. */
export function toMergePatch(secret: DesiredClusterSecret, resourceVersion: string): object {
  return {
    metadata: {
      resourceVersion,
      labels: { ...secret.labels },
      annotations: { ...secret.annotations },
    },
    type: SECRET_TYPE,
    data: { [DOCKER_CONFIG_JSON]: secret.dockerConfigJson.toString('base64') },
  };
}

/** JSON patch `test` operations: the Secret carries our three labels, for this cluster. */
export function ownershipTests(clusterId: string): object[] {
  return [
    { op: 'test', path: '/metadata/labels/managed-by', value: 'hyperfleet' },
    { op: 'test', path: '/metadata/labels/adapter', value: 'pullsecret' },
    { op: 'test', path: '/metadata/labels/cluster-id', value: clusterId },
  ];
}

export function toClusterSecret(secret: k8s.V1Secret): ClusterSecret {
  const encoded = secret.data?.[DOCKER_CONFIG_JSON];
  return {
    namespace: secret.metadata?.namespace ?? '',
    name: secret.metadata?.name ?? '',
    type: secret.type ?? 'Opaque',
    labels: { ...(secret.metadata?.labels ?? {}) },
    annotations: { ...(secret.metadata?.annotations ?? {}) },
    dockerConfigJson: encoded === undefined ? undefined : Buffer.from(encoded, 'base64'),
    resourceVersion: secret.metadata?.resourceVersion ?? '',
  };
}
