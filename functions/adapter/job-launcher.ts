import type { Operation } from '../../shared/hyperfleet/outcome';
import { secretManagerSecretId } from '../../shared/pull-secret/names';

/** Where the job finds the pull secret: a reference, never the bytes. */
export type PullSecretReference =
  | {
      readonly source: 'cluster-spec';
      readonly specPath: string;
      readonly additionalSpecPath: string;
    }
  | {
      readonly source: 'secret-manager';
      readonly version: string;
      readonly additionalSpecPath: string;
    };

/** One execution to start. */
export interface LaunchRequest {
  readonly clusterId: string;
  readonly clusterName: string;
  readonly generation: number;
  readonly gcpProjectId: string;
  readonly namespace: string;
  readonly operation: Operation;
  readonly attempt: number;
  readonly pullSecret: PullSecretReference;
}

/** Starts the pull secret job for a cluster and returns at once with the execution's name. */
export interface JobLauncher {
  launch(request: LaunchRequest): Promise<{ execution: string }>;
}

/** The per-execution environment: identifiers and references only, never secret material. */
export function executionEnv(request: LaunchRequest): Record<string, string> {
  const reference: Record<string, string> =
    request.pullSecret.source === 'cluster-spec'
      ? { PULL_SECRET_SOURCE: 'cluster-spec', PULL_SECRET_SPEC_PATH: request.pullSecret.specPath }
      : {
          PULL_SECRET_SOURCE: 'secret-manager',
          PULL_SECRET_SECRET_VERSION: request.pullSecret.version,
        };
  return {
    CLUSTER_ID: request.clusterId,
    CLUSTER_NAME: request.clusterName,
    GENERATION: String(request.generation),
    GCP_PROJECT_ID: request.gcpProjectId,
    SECRET_NAME: secretManagerSecretId(request.clusterId),
    MANAGEMENT_NAMESPACE: request.namespace,
    OPERATION: request.operation,
    LAUNCH_ATTEMPT: String(request.attempt),
    ...reference,
    PULL_SECRET_ADDITIONAL_SPEC_PATH: request.pullSecret.additionalSpecPath,
  };
}
