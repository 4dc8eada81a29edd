import * as z from 'zod';
import { PermanentError, TransientError } from '../../../shared/errors';

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

/** The HTTP code and Status of an error of @kubernetes/client-node (ApiException: `code`, `body`). */
export function apiFailure(error: unknown): ApiFailure {
  const code = (error as { code?: unknown } | null)?.code;
  const body = (error as { body?: unknown } | null)?.body;
  let parsed: unknown = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
  }
  const status = statusSchema.safeParse(parsed);
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

export class CallTimeoutError extends Error {}

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

export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CallTimeoutError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
