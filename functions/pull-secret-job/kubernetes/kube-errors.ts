import { PermanentError, TransientError } from '../../../shared/errors';

/** The parts of a Kubernetes API error the job acts on. */
interface ApiFailure {
  code?: number;
  status?: { reason?: string; message?: string; details?: { kind?: string; name?: string } };
}

export function apiFailure(error: unknown): ApiFailure {
  const code = (error as { code?: unknown } | null)?.code;
  const body = (error as { body?: unknown } | null)?.body;
  let status: ApiFailure['status'];
  if (typeof body === 'string') {
    try {
      status = JSON.parse(body) as ApiFailure['status'];
    } catch {
      status = undefined;
    }
  } else if (body && typeof body === 'object') status = body as ApiFailure['status'];
  return { ...(typeof code === 'number' ? { code } : {}), ...(status ? { status } : {}) };
}

export class CallTimeoutError extends Error {}

/** A failed call as the job reports it: permanent (401, 403, 400, 422) or transient, with why. */
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
