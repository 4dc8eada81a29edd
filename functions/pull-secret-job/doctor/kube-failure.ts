import * as z from 'zod';
import { apiExceptionBody } from '../kubernetes/kubernetes-cluster-secrets';

/** What a failed Kubernetes client call says: an HTTP answer, or no answer (TLS, network). */
export type KubeFailure =
  | { readonly kind: 'http'; readonly status: number; readonly message: string }
  | { readonly kind: 'tls'; readonly detail: string }
  | { readonly kind: 'unreachable'; readonly detail: string };

/** A Kubernetes Status ({message, reason}). */
const statusSchema = z.object({ message: z.string() });
/** A Google API error: Connect Gateway's own refusals. */
const googleErrorSchema = z.object({ error: z.object({ message: z.string() }) });

/** Certificate errors Node reports (node:tls): the job does not trust what the endpoint serves. */
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS|HOSTNAME|ALTNAME/;

/** Classifies an error of @kubernetes/client-node (ApiException with `code` and `body`, or a fetch error). */
export function kubeFailureOf(error: unknown): KubeFailure {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number') {
    const body = apiExceptionBody(error);
    const status = statusSchema.safeParse(body);
    const google = googleErrorSchema.safeParse(body);
    const message = status.success
      ? status.data.message
      : google.success
        ? google.data.error.message
        : `HTTP ${code}`;
    return { kind: 'http', status: code, message };
  }
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const systemCode =
    typeof code === 'string' ? code : typeof cause?.code === 'string' ? cause.code : '';
  const message = error instanceof Error ? error.message : String(error);
  if (TLS_CODES.test(systemCode) || /certificate|self[- ]signed/i.test(message))
    return { kind: 'tls', detail: systemCode || message };
  return { kind: 'unreachable', detail: systemCode ? `${systemCode}: ${message}` : message };
}
