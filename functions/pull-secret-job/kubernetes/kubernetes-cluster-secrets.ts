import type * as k8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import * as z from 'zod';
import { PermanentError, TransientError } from '../../../shared/errors';
import { loggedApiCall, type CallStatuses } from '../../../shared/logging/api-call-log';
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
import { loadKubernetesClient } from './kubernetes-client';

// The adapter to the Kubernetes API for our Secrets: the calls (each with a deadline, retried on
// transient failures), the bodies and patches they send and how an answer is read back into a
// ClusterSecret, and how the API's errors are read (what is transient, what each failure tells a
// person to do).

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
    const { logger, retry, timeoutMs } = this.options;
    const operation = `${verb}-secret`;
    // Every attempt's answer is one entry: the API-call metrics count them (api-call-log.ts).
    const attempt = (n: number) =>
      loggedApiCall(
        logger,
        { ...KUBERNETES_API, operation, attempt: n, target: { namespace, k8s_secret: name } },
        KUBE_CALL_STATUSES,
        () => withTimeout(request(), timeoutMs),
      );
    return withRetry(attempt, {
      policy: retry,
      isRetryable: isTransientKubeError,
      onRetry: ({ error, retry: n, delayMs }) =>
        logger.warn(`Kubernetes ${verb} secret failed, retrying`, {
          operation,
          namespace,
          k8s_secret: name,
          retry: n,
          delay_ms: delayMs,
          code:
            error instanceof CallTimeoutError ? 'timeout' : (apiFailure(error).code ?? 'network'),
        }),
    });
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

// The bodies the calls send, and an answer read back.

const DOCKER_CONFIG_JSON = '.dockerconfigjson';
const SECRET_TYPE = 'kubernetes.io/dockerconfigjson';

function toBody(secret: DesiredClusterSecret): k8s.V1Secret {
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

/**
 * The merge patch of the fields we own; maps merge key by key, so other keys stay, and a key set
 * to null is removed (RFC 7386): how an annotation of ours that no longer holds goes.
 */
function toMergePatch(secret: DesiredClusterSecret, resourceVersion: string): object {
  const removed = Object.fromEntries((secret.removedAnnotations ?? []).map((key) => [key, null]));
  return {
    metadata: {
      resourceVersion,
      labels: { ...secret.labels },
      annotations: { ...removed, ...secret.annotations },
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

function toClusterSecret(secret: k8s.V1Secret): ClusterSecret {
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

// How the API's errors are read.

/** The parts of a Kubernetes `Status` (metav1.Status) the job acts on. */
const statusSchema = z.object({
  reason: z.string().optional(),
  message: z.string().optional(),
  details: z
    .object({
      kind: z.string().optional(),
      name: z.string().optional(),
      /** Why, in machine-readable form (metav1.StatusCause: its `type` is sent as `reason`). */
      causes: z
        .array(z.object({ reason: z.string().optional(), message: z.string().optional() }))
        .optional(),
    })
    .optional(),
});

/** The parts of a Kubernetes API error the job acts on. */
interface ApiFailure {
  code?: number;
  status?: z.infer<typeof statusSchema>;
}

/**
 * The body of an error of @kubernetes/client-node (ApiException: `body`), parsed when it came as
 * JSON text; undefined when it is not JSON. Also read by the doctor (doctor/kube-failure.ts).
 */
export function apiExceptionBody(error: unknown): unknown {
  const body = (error as { body?: unknown } | null)?.body;
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** The HTTP code and Status of an error of @kubernetes/client-node (ApiException: `code`, `body`). */
function apiFailure(error: unknown): ApiFailure {
  const code = (error as { code?: unknown } | null)?.code;
  const status = statusSchema.safeParse(apiExceptionBody(error));
  return {
    ...(typeof code === 'number' ? { code } : {}),
    ...(status.success ? { status: status.data } : {}),
  };
}

/**
 * The NamespaceLifecycle admission plugin's refusal of a create in a namespace that is being
 * deleted: 403 with the cause `NamespaceTerminating` (k8s.io/apiserver
 * pkg/admission/plugin/namespace/lifecycle/admission.go). It says nothing about rights.
 */
function isNamespaceTerminating(failure: ApiFailure): boolean {
  return (
    failure.code === 403 &&
    (failure.status?.details?.causes ?? []).some((cause) => cause.reason === 'NamespaceTerminating')
  );
}

class CallTimeoutError extends Error {}

const KUBERNETES_API = { api: 'kubernetes', service: 'Kubernetes' };

/** The client resolves only on a 2xx and does not say which; a failure carries its HTTP status. */
const KUBE_CALL_STATUSES: CallStatuses = {
  answered: { status_code: '2xx' },
  failed: (error) => ({
    status_code:
      error instanceof CallTimeoutError
        ? 'timeout'
        : String(apiFailure(error).code ?? 'no_response'),
  }),
};

/**
 * A failed call as the job reports it: permanent (401, 403, 400, 422) or transient, with why. A
 * 403 because the namespace is being deleted is transient (`NamespaceTerminating`).
 */
export function translateKubeError(
  error: unknown,
  call: { verb: string; namespace: string; name: string; identityHint: string },
): Error {
  const { verb, namespace, name } = call;
  const failure = apiFailure(error);
  const where = `${verb} Secret ${namespace}/${name} in the management cluster`;
  const detail =
    failure.status?.message ?? (error instanceof Error ? error.message : String(error));
  if (failure.code === 401) {
    return new PermanentError(
      `Could not ${where}: 401 Unauthorized: the cluster rejected the credentials of ${call.identityHint}. Check KUBECONFIG or the job's service account.`,
      'Unauthenticated',
      { cause: error },
    );
  }
  // Checked before every other 403: this one is not about rights, and must never say to grant any.
  if (isNamespaceTerminating(failure))
    return new TransientError(
      `Could not ${where}: namespace "${namespace}" is being deleted (Terminating), and Kubernetes admits nothing new in it until it is gone (403 NamespaceTerminating: ${detail}). ` +
        'No permission is missing. The run is retried with backoff: if the cluster is being deleted, its delete removes what is left; otherwise the Secret is written once the namespace exists again (the placement adapter creates it).',
      'NamespaceTerminating',
      { cause: error },
    );
  if (failure.code === 403 && detail.includes('SecretGenerationAhead'))
    return new PermanentError(
      `Could not ${where}: the admission fence refused it: ${detail}`,
      'SecretGenerationAhead',
      { cause: error },
    );
  if (failure.code === 403) {
    return new PermanentError(
      `Could not ${where}: 403 Forbidden: ${detail}. ${
        detail.includes('ValidatingAdmissionPolicy')
          ? "The admission fence admits only this cluster's own pull secret in its own namespace (docs/management-clusters.md)."
          : `Grant that identity the "${verb === 'read' ? 'patch' : verb}" verb on secrets in namespace "${namespace}" (see docs/deployment.md).`
      }`,
      'PermissionDenied',
      { cause: error },
    );
  }
  if (failure.code === 422 || failure.code === 400) {
    return new PermanentError(
      `Could not ${where}: ${failure.code} ${failure.status?.reason ?? 'Invalid'}: ${detail}`,
      'KubernetesSecretInvalid',
      { cause: error },
    );
  }
  const code = error instanceof CallTimeoutError ? 'timed out' : `${failure.code ?? 'no response'}`;
  return new TransientError(
    `Could not ${where}: ${code}: ${detail}. It was retried with backoff.`,
    'KubernetesUnavailable',
    { cause: error },
  );
}

/** 5xx, 429, timeouts and errors without an HTTP status (connection refused, reset) are transient. */
export function isTransientKubeError(error: unknown): boolean {
  if (error instanceof CallTimeoutError) return true;
  const code = apiFailure(error).code;
  return code === undefined || code === 429 || code >= 500;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CallTimeoutError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
