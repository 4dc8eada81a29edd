/** The HostedCluster API (hypershift.openshift.io/v1beta1), as HyperShift serves it. */
export const HOSTED_CLUSTER_API = {
  group: 'hypershift.openshift.io',
  version: 'v1beta1',
  plural: 'hostedclusters',
  kind: 'HostedCluster',
} as const;

/** The label the simulator finds its HostedClusters by, in every management cluster. */
export const CLUSTER_ID_LABEL = 'hyperfleet.io/cluster-id';

const apiPath = `/apis/${HOSTED_CLUSTER_API.group}/${HOSTED_CLUSTER_API.version}`;

/** The collection of HostedClusters in a namespace, or in every namespace. */
export function hostedClustersPath(namespace?: string): string {
  return namespace
    ? `${apiPath}/namespaces/${namespace}/${HOSTED_CLUSTER_API.plural}`
    : `${apiPath}/${HOSTED_CLUSTER_API.plural}`;
}

/** What the HyperFleet cluster contributes to its HostedCluster. */
export interface HostedClusterInput {
  readonly clusterId: string;
  readonly clusterName: string;
  readonly namespace: string;
  readonly pullSecretName: string;
  readonly spec: Readonly<Record<string, unknown>>;
}

const text = (value: unknown, fallback: string) =>
  typeof value === 'string' && value !== '' ? value : fallback;

/**
 * The HostedCluster of seed 004, reduced to what the local stack can fill in: named after the
 * cluster, in the namespace our Secret is in, `spec.pullSecret.name` naming it, GCP platform
 * fields from the cluster spec. `infraID` is the cluster id, as the seed's template says.
 */
export function hostedClusterManifest(input: HostedClusterInput): Record<string, unknown> {
  const platform = (input.spec.platform ?? {}) as { gcp?: Record<string, unknown> };
  const release = (input.spec.release ?? {}) as { version?: unknown };
  return {
    apiVersion: `${HOSTED_CLUSTER_API.group}/${HOSTED_CLUSTER_API.version}`,
    kind: HOSTED_CLUSTER_API.kind,
    metadata: {
      name: input.clusterName,
      namespace: input.namespace,
      labels: { [CLUSTER_ID_LABEL]: input.clusterId, 'managed-by': 'hyperfleet' },
    },
    spec: {
      release: {
        image: `quay.io/openshift-release-dev/ocp-release:${text(release.version, '4.22.0')}-x86_64`,
      },
      pullSecret: { name: input.pullSecretName },
      platform: {
        type: 'GCP',
        gcp: {
          project: text(platform.gcp?.projectID, 'unknown-project'),
          region: text(platform.gcp?.region, 'us-central1'),
        },
      },
      infraID: input.clusterId,
      networking: {
        clusterNetwork: [{ cidr: '10.132.0.0/14' }],
        serviceNetwork: [{ cidr: '172.31.0.0/16' }],
        machineNetwork: [{ cidr: '10.0.0.0/16' }],
      },
      services: [
        { service: 'APIServer', servicePublishingStrategy: { type: 'LoadBalancer' } },
        { service: 'OAuthServer', servicePublishingStrategy: { type: 'Route' } },
        { service: 'Konnectivity', servicePublishingStrategy: { type: 'Route' } },
        { service: 'Ignition', servicePublishingStrategy: { type: 'Route' } },
      ],
    },
  };
}
