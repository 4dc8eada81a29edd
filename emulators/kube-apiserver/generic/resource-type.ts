import type { PrinterColumn } from '../crds/printer-table';
import type { Obj } from '../object-book';

/**
 * A kind served by the generic engine (custom resources and the built-in API groups this emulator
 * stores generically: CustomResourceDefinitions, ValidatingAdmissionPolicies and their bindings).
 */
export interface ResourceType {
  readonly group: string;
  /** The versions served, in the order the CRD lists them; objects are stored without conversion. */
  readonly versions: readonly string[];
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly namespaced: boolean;
  /**
   * Built-in kinds are decoded into typed structs, which take apiVersion and kind from the URL
   * when the body omits them; custom resources are decoded as unstructured data, which needs both.
   */
  readonly typeMetaFromUrl: boolean;
  /** A `/status` subresource: the main resource ignores status, `/status` changes only status. */
  readonly statusSubresource: boolean;
  /** The verbs discovery lists; default: the full set (create, delete, get, list, patch, update, watch). */
  readonly verbs?: readonly string[];
  /** The columns `kubectl get` shows for a version (custom resources: the CRD's printer columns). */
  readonly printerColumns?: (version: string) => PrinterColumn[];
  /**
   * Validates and completes a candidate object (defaults, pruning, immutable fields); throws the
   * API server's 422 (or 400) KubeError. `strict` is `?fieldValidation=Strict`: unknown fields are
   * then an error instead of being dropped.
   */
  readonly normalise: (object: Obj, previous: Obj | undefined, strict: boolean) => Obj;
}

/** `plural.group` (or `plural` for the core group): the resource as errors and RBAC name it. */
export const qualifiedResource = (type: Pick<ResourceType, 'plural' | 'group'>): string =>
  type.group === '' ? type.plural : `${type.plural}.${type.group}`;

/** `Kind.group` (or `Kind`): the kind as 422 messages name it. */
export const qualifiedKind = (type: Pick<ResourceType, 'kind' | 'group'>): string =>
  type.group === '' ? type.kind : `${type.kind}.${type.group}`;

/** The `apiVersion` of a version of `type`. */
export const apiVersionOf = (type: Pick<ResourceType, 'group'>, version: string): string =>
  type.group === '' ? version : `${type.group}/${version}`;

/** The key of a type in the engine's tables: `plural.group`. */
export const typeKey = qualifiedResource;
