import type { AdmissionAttributes } from './admission/match';
import { isObject } from './merge-patch';
import { metadataOf, type Obj } from './object-book';
import { forbiddenBecause, type KubeError } from './status';

// How a namespace ends on a real cluster. Three parts of Kubernetes share one rule, so it is kept
// here in one place: nothing new enters a namespace once its deletion has started, and the
// namespace goes only after everything in it has gone.
//
// - The namespace registry (kubernetes/kubernetes pkg/registry/core/namespace/storage/storage.go,
//   `REST.Delete`): the first DELETE sets `metadata.deletionTimestamp` and `status.phase:
//   Terminating` and answers the namespace (200). A DELETE while `spec.finalizers` remain answers
//   the namespace unchanged.
// - The namespace controller (pkg/controller/namespace/deletion/namespaced_resources_deleter.go,
//   `Delete`): it deletes every object in the namespace. Once nothing is left it removes its
//   `kubernetes` finalizer through `/finalize`, and the registry removes the namespace.
// - The NamespaceLifecycle admission plugin (staging/src/k8s.io/apiserver/pkg/admission/plugin/
//   namespace/lifecycle/admission.go, `Admit`): `default`, `kube-system` and `kube-public` may not
//   be deleted. A CREATE in a Terminating namespace is refused with 403 and the cause
//   `NamespaceTerminating`. Updates, patches and deletes of what is already there pass.

/** The namespaces NamespaceLifecycle never lets be deleted (its `immortalNamespaces`). */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set([
  'default',
  'kube-system',
  'kube-public',
]);

/** Whether a namespace's deletion has started (`status.phase: Terminating`). */
export const isTerminating = (namespace: Obj): boolean =>
  isObject(namespace.status) && namespace.status.phase === 'Terminating';

/** The namespace as the registry's first DELETE leaves it: a deletion timestamp, phase Terminating. */
export function markedTerminating(namespace: Obj, now: string): Obj {
  const meta = metadataOf(namespace);
  return {
    ...namespace,
    metadata: { ...meta, deletionTimestamp: meta.deletionTimestamp ?? now },
    status: { ...(isObject(namespace.status) ? namespace.status : {}), phase: 'Terminating' },
  };
}

/** What NamespaceLifecycle reads of a write request. */
export type LifecycleRequest = Pick<
  AdmissionAttributes,
  'operation' | 'group' | 'resource' | 'kind' | 'name' | 'namespace'
>;

/**
 * NamespaceLifecycle's refusal of a write, or undefined when the write may pass. `namespace` is
 * the request's namespace as stored. When it is undefined the namespace is missing, and the store
 * answers that with its own 404.
 */
export function namespaceLifecycleRefusal(
  request: LifecycleRequest,
  namespace: Obj | undefined,
): KubeError | undefined {
  const isNamespace = request.group === '' && request.kind === 'Namespace';
  if (isNamespace && request.operation === 'DELETE' && IMMORTAL_NAMESPACES.has(request.name))
    return forbiddenBecause('namespaces', '', request.name, 'this namespace may not be deleted');
  // Writes to namespaces themselves, to cluster-scoped objects, and every delete pass: the
  // namespace controller must be able to empty a Terminating namespace.
  if (isNamespace || request.namespace === '' || request.operation !== 'CREATE') return undefined;
  if (!namespace || !isTerminating(namespace)) return undefined;
  return forbiddenBecause(
    request.resource,
    request.group,
    request.name,
    `unable to create new content in namespace ${request.namespace} because it is being terminated`,
    [
      {
        reason: 'NamespaceTerminating',
        message: `namespace ${request.namespace} is being terminated`,
        field: 'metadata.namespace',
      },
    ],
  );
}

/**
 * The name admission reports for a create that may not be named yet: `metadata.name`, else
 * `generateName`, else `Unknown` (apiserver pkg/admission/errors.go `extractResourceName`).
 */
export function admissionName(body: Obj): string {
  const meta = metadataOf(body);
  if (typeof meta.name === 'string' && meta.name !== '') return meta.name;
  if (typeof meta.generateName === 'string' && meta.generateName !== '') return meta.generateName;
  return 'Unknown';
}

/**
 * The namespace controller. `finish` removes a Terminating namespace's contents and then the
 * namespace. For a namespace that is not Terminating it does nothing. The controller runs as soon
 * as a namespace is marked, unless a test holds that name. A held namespace stays Terminating with
 * everything in it until it is released. A real controller can take that long: many objects, a
 * finalizer that does not clear, a group whose discovery fails. Tests use the hold to act inside
 * that window at a moment they choose.
 */
export class NamespaceController {
  private readonly holds = new Set<string>();

  constructor(private readonly finish: (name: string) => void) {}

  /** Keeps the controller off `name` until `release`. The hold can be set before the delete. */
  hold(name: string): void {
    this.holds.add(name);
  }

  /** Lets the controller finish `name`: if it is Terminating, its contents go now, then the namespace. */
  release(name: string): void {
    this.holds.delete(name);
    this.finish(name);
  }

  /** The names held, sorted. */
  held(): string[] {
    return [...this.holds].sort();
  }

  /** A namespace was marked Terminating: the controller removes it unless it is held. */
  marked(name: string): void {
    if (!this.holds.has(name)) this.finish(name);
  }
}
