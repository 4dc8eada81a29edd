import { metadataOf, type Obj } from '../object-book';
import { KubeError } from '../status';
import type { KubeStore } from '../store';
import { apiVersionOf } from './resource-type';
import { servedTypes } from './type-registry';

/**
 * Creates `/apis` objects at start, in order, as an administrator would apply them: CRDs first,
 * then objects of the kinds they register, admission policies and their bindings. Validation is
 * the API's; an object the server would refuse stops the start with the server's message.
 */
export function seedObjects(store: KubeStore, objects: readonly Record<string, unknown>[]): void {
  for (const given of objects) {
    const object = given as Obj;
    const type = servedTypes(store.objects).find((t) =>
      t.versions.some((v) => apiVersionOf(t, v) === object.apiVersion && t.kind === object.kind),
    );
    if (!type)
      throw new Error(
        `Cannot seed ${String(object.kind)} ${String(object.apiVersion)}: not a kind served under /apis (register its CRD first)`,
      );
    const version = String(object.apiVersion).split('/')[1]!;
    const meta = metadataOf(object);
    const namespace = type.namespaced && typeof meta.namespace === 'string' ? meta.namespace : '';
    try {
      store.objects.create({ type, version, namespace }, object, {
        manager: 'emulator-seed',
        dryRun: false,
        strict: true,
        part: 'main',
      });
    } catch (error) {
      const why = error instanceof KubeError ? error.status.message : String(error);
      throw new Error(`Cannot seed ${type.kind} ${String(meta.name)}: ${why}`);
    }
  }
}
