import type * as k8s from '@kubernetes/client-node' with { 'resolution-mode': 'import' };

/**
 * The part of @kubernetes/client-node the job uses. Why a list: the job loads the library lazily
 * (`await import`), and a dynamic import keeps every export of the package, so its chunk would
 * hold the generated client of every API group (3.5 MB, read and compiled on every apply run). The
 * bundle (scripts/bundle.cjs) answers the job's import with a module that re-exports only these
 * names, which lets esbuild drop the rest (1.5 MB left; about 6 MB less peak RSS per run). The type
 * below makes using any other name a compile error, so the list cannot fall behind the code.
 */
export const KUBERNETES_CLIENT_EXPORTS = [
  'KubeConfig',
  'CoreV1Api',
  // pull-secret doctor: SelfSubjectAccessReview, what the job's identity may do (doctor/).
  'AuthorizationV1Api',
  'createConfiguration',
  'ServerConfiguration',
  'PatchStrategy',
  'setHeaderOptions',
] as const;

export type KubernetesClient = Pick<typeof k8s, (typeof KUBERNETES_CLIENT_EXPORTS)[number]>;

/** Loads the Kubernetes client library (only the Kubernetes phase needs it). */
export function loadKubernetesClient(): Promise<KubernetesClient> {
  return import('@kubernetes/client-node');
}
