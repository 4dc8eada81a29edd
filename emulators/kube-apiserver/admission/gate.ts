import type { Obj } from '../object-book';
import { namespaceLifecycleRefusal, type LifecycleRequest } from '../namespace-termination';
import type { KubeStore } from '../store';
import { admit } from './evaluate';
import type { AdmissionAttributes } from './match';
import { BINDING_TYPE, POLICY_TYPE } from './policy-types';

/** A write request as admission sees it, before the objects are known. */
export type WriteRequest = Omit<AdmissionAttributes, 'object' | 'oldObject' | 'namespaceObject'>;

/**
 * Validating admission for one write: runs after authorization and after the object has been
 * computed (defaults applied, as a dry run), before anything is stored. Throws the denial's
 * Status; returns the warnings of `Warn` bindings. Policies and bindings themselves are not
 * subject to policies (as on the real server, so a bad policy cannot lock itself in).
 */
export function admitWrite(
  store: KubeStore,
  request: WriteRequest,
  object: Obj | null,
  oldObject: Obj | null,
): string[] {
  if (request.group === POLICY_TYPE.group) return [];
  const bindings = store.objects.all(BINDING_TYPE);
  if (bindings.length === 0) return [];
  const namespaceObject =
    request.namespace !== '' && store.hasNamespace(request.namespace)
      ? store.getNamespace(request.namespace)
      : null;
  const result = admit(store.objects.all(POLICY_TYPE), bindings, {
    ...request,
    object,
    oldObject,
    namespaceObject,
  });
  if (result.denied) throw result.denied;
  return result.warnings;
}

/**
 * The NamespaceLifecycle plugin (namespace-termination.ts), run on every write before the object
 * is checked. It is a mutating admission plugin, and the API server runs those before validation
 * (422) and before validating admission (apiserver pkg/endpoints/handlers/create.go: `Admit`, then
 * the store's create). So a create in a Terminating namespace is refused even when invalid.
 */
export function admitNamespaceLifecycle(store: KubeStore, request: LifecycleRequest): void {
  const namespace =
    request.namespace !== '' && store.hasNamespace(request.namespace)
      ? store.getNamespace(request.namespace)
      : undefined;
  const refusal = namespaceLifecycleRefusal(request, namespace);
  if (refusal) throw refusal;
}
