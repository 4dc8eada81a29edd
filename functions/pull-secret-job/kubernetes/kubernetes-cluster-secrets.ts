import type * as k8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import type { Logger } from '../../../shared/logging/logger';
import type { RetryPolicy } from '../../../shared/retry/backoff';
import { withRetry } from '../../../shared/retry/with-retry';
import {
  FOREIGN,
  NamespaceMissingError,
  WriteConflictError,
  type ClusterSecret,
  type ClusterSecrets,
  type DesiredClusterSecret,
  type OwnProbe,
} from './cluster-secrets';
import {
  CallTimeoutError,
  apiFailure,
  isTransientKubeError,
  translateKubeError,
  withTimeout,
} from './kube-errors';
import { loadKubernetesClient } from './kubernetes-client';
import { ownershipTests, toBody, toClusterSecret, toMergePatch } from './secret-bodies';

export { isTransientKubeError, ownershipTests };

/** Our name in `metadata.managedFields`, so a cluster's users can see which fields we wrote. */
export const FIELD_MANAGER = 'pullsecret-job';

/** ClusterSecrets over @kubernetes/client-node (any cluster: GKE, Connect Gateway, the emulator). */
export class KubernetesClusterSecrets implements ClusterSecrets {
  constructor(
    private readonly api: k8s.CoreV1Api,
    private readonly options: {
      timeoutMs: number;
      retry: RetryPolicy;
      logger: Logger;
      identityHint: string;
    },
  ) {}

  /**
   * A dry-run JSON patch of `test` operations that pin our three labels: the API server applies
   * it to our Secret without storing anything and answers it (its resourceVersion the current
   * one), or answers 422 when a test fails (a Secret that is not ours; no content). Admission runs
   * on dry runs too, and the fence admits this UPDATE only for our own pull secret. 404: none there
   * (or no namespace).
   */
  async probeOwn(namespace: string, name: string, clusterId: string): Promise<OwnProbe> {
    const { PatchStrategy, setHeaderOptions } = await loadKubernetesClient();
    const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
    try {
      return toClusterSecret(
        await this.call('read', namespace, name, () =>
          this.api.patchNamespacedSecret(
            {
              name,
              namespace,
              body: ownershipTests(clusterId),
              fieldManager: FIELD_MANAGER,
              dryRun: 'All',
            },
            jsonPatch,
          ),
        ),
      );
    } catch (error) {
      const code = apiFailure(error).code;
      if (code === 404) return undefined;
      // A failed test operation: not ours. A 422 from admission (an evaluation error, or another
      // policy of the platform's) says nothing about ownership: it is reported as it is.
      if (
        code === 422 &&
        !/ValidatingAdmissionPolicy|admission webhook/.test(apiFailure(error).status?.message ?? '')
      )
        return FOREIGN;
      throw this.translate(error, 'read', namespace, name);
    }
  }

  async create(secret: DesiredClusterSecret): Promise<ClusterSecret> {
    try {
      return toClusterSecret(
        await this.call('create', secret.namespace, secret.name, () =>
          this.api.createNamespacedSecret({
            namespace: secret.namespace,
            body: toBody(secret),
            fieldManager: FIELD_MANAGER,
          }),
        ),
      );
    } catch (error) {
      const failure = apiFailure(error);
      if (failure.code === 404 && failure.status?.details?.kind === 'namespaces')
        throw new NamespaceMissingError(secret.namespace);
      if (failure.code === 409)
        throw new WriteConflictError(`Secret ${secret.namespace}/${secret.name} already exists`);
      throw this.translate(error, 'create', secret.namespace, secret.name);
    }
  }

  /**
   * A JSON merge patch of only the fields we own (our labels and annotations, the
   * `.dockerconfigjson` key, the type), with `metadata.resourceVersion` as a precondition: the API
   * server answers 409 if the Secret changed since we read it. Everything else another actor put
   * there (ownerReferences, finalizers, other labels, annotations and data keys, `immutable`)
   * is left as it is, which a full replace would only keep by copying it and racing its writers.
   */
  async update(secret: DesiredClusterSecret, resourceVersion: string): Promise<ClusterSecret> {
    const { PatchStrategy, setHeaderOptions } = await loadKubernetesClient();
    const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    try {
      return toClusterSecret(
        await this.call('update', secret.namespace, secret.name, () =>
          this.api.patchNamespacedSecret(
            {
              name: secret.name,
              namespace: secret.namespace,
              body: toMergePatch(secret, resourceVersion),
              fieldManager: FIELD_MANAGER,
            },
            mergePatch,
          ),
        ),
      );
    } catch (error) {
      const code = apiFailure(error).code;
      if (code === 409 || code === 404)
        throw new WriteConflictError(
          `Secret ${secret.namespace}/${secret.name} changed while it was being updated`,
        );
      throw this.translate(error, 'update', secret.namespace, secret.name);
    }
  }

  async delete(namespace: string, name: string, resourceVersion: string): Promise<boolean> {
    try {
      await this.call('delete', namespace, name, () =>
        this.api.deleteNamespacedSecret({
          name,
          namespace,
          body: { preconditions: { resourceVersion } },
        }),
      );
      return true;
    } catch (error) {
      const code = apiFailure(error).code;
      if (code === 404) return false;
      if (code === 409)
        throw new WriteConflictError(
          `Secret ${namespace}/${name} changed before it could be deleted`,
        );
      throw this.translate(error, 'delete', namespace, name);
    }
  }

  /** One call with a deadline, retried with backoff on 5xx, 429, timeouts and network errors. */
  private async call<T>(
    verb: string,
    namespace: string,
    name: string,
    request: () => Promise<T>,
  ): Promise<T> {
    const started = Date.now();
    const { logger, retry, timeoutMs } = this.options;
    const result = await withRetry(() => withTimeout(request(), timeoutMs), {
      policy: retry,
      isRetryable: isTransientKubeError,
      onRetry: ({ error, retry: n, delayMs }) =>
        logger.warn(`Kubernetes ${verb} secret failed, retrying`, {
          operation: `${verb}-secret`,
          namespace,
          k8s_secret: name,
          retry: n,
          delay_ms: delayMs,
          code:
            error instanceof CallTimeoutError ? 'timeout' : (apiFailure(error).code ?? 'network'),
        }),
    });
    logger.debug(`Kubernetes ${verb} secret`, {
      operation: `${verb}-secret`,
      namespace,
      k8s_secret: name,
      duration_ms: Date.now() - started,
    });
    return result;
  }

  private translate(error: unknown, verb: string, namespace: string, name: string): Error {
    return translateKubeError(error, {
      verb,
      namespace,
      name,
      identityHint: this.options.identityHint,
    });
  }
}
