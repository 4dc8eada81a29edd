import { isObject, type Json } from '../merge-patch';
import type { Obj } from '../object-book';

/** What admission knows about a write request (k8s.io/apiserver admission.Attributes). */
export interface AdmissionAttributes {
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE';
  readonly group: string;
  readonly version: string;
  /** The plural resource (`secrets`) and the subresource (`status`, or ''). */
  readonly resource: string;
  readonly subresource: string;
  readonly kind: string;
  readonly name: string;
  /** '' for a cluster-scoped object. */
  readonly namespace: string;
  readonly object: Obj | null;
  readonly oldObject: Obj | null;
  readonly username: string;
  /** The user's groups (request.userInfo.groups); system:authenticated when not given. */
  readonly groups?: readonly string[];
  readonly dryRun: boolean;
  /** The namespace's object (for namespaceSelector and `namespaceObject`); null at cluster scope. */
  readonly namespaceObject: Obj | null;
}

const strings = (value: Json | undefined): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

const labelsOf = (object: Obj | null): Record<string, string> => {
  const meta = object && isObject(object.metadata) ? object.metadata : {};
  return isObject(meta.labels) ? (meta.labels as Record<string, string>) : {};
};

/**
 * A `resources` entry against the request's resource/subresource: `secrets` is the resource only,
 * `secrets/status` one subresource, `secrets/*` the resource and every subresource, `*` every resource (no
 * subresources), `*\/*` everything, `*\/status` a subresource of any resource.
 */
export function matchesResource(pattern: string, resource: string, subresource: string): boolean {
  const [res = '', sub] = pattern.split('/');
  const resourceOk = res === '*' || res === resource;
  if (sub === undefined) return resourceOk && subresource === '';
  return resourceOk && (sub === '*' || sub === subresource);
}

/** One NamedRuleWithOperations (apiGroups, apiVersions, operations, resources, scope). */
export function matchesRule(rule: Json, attrs: AdmissionAttributes): boolean {
  if (!isObject(rule)) return false;
  const any = (values: string[], value: string) => values.includes('*') || values.includes(value);
  const scope = typeof rule.scope === 'string' ? rule.scope : '*';
  const namespaced = attrs.namespace !== '';
  const names = strings(rule.resourceNames);
  return (
    any(strings(rule.apiGroups), attrs.group) &&
    any(strings(rule.apiVersions), attrs.version) &&
    any(strings(rule.operations), attrs.operation) &&
    strings(rule.resources).some((r) => matchesResource(r, attrs.resource, attrs.subresource)) &&
    (scope === '*' || (scope === 'Namespaced') === namespaced) &&
    (names.length === 0 || names.includes(attrs.name))
  );
}

/** A metav1.LabelSelector (matchLabels and matchExpressions); an empty selector matches all. */
export function matchesSelector(
  selector: Json | undefined,
  labels: Record<string, string>,
): boolean {
  if (!isObject(selector)) return true;
  const matchLabels = isObject(selector.matchLabels) ? selector.matchLabels : {};
  if (Object.entries(matchLabels).some(([k, v]) => labels[k] !== v)) return false;
  return (Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []).every((e) => {
    if (!isObject(e) || typeof e.key !== 'string') return false;
    const values = strings(e.values);
    const has = e.key in labels;
    switch (e.operator) {
      case 'In':
        return has && values.includes(labels[e.key]!);
      case 'NotIn':
        return !has || !values.includes(labels[e.key]!);
      case 'Exists':
        return has;
      case 'DoesNotExist':
        return !has;
      default:
        return false;
    }
  });
}

/**
 * matchConstraints (or a binding's matchResources): some resourceRule matches, no
 * excludeResourceRule does, and the namespace and object selectors match (the object selector
 * against the new or the old object, as the API server does). `rulesRequired`: a binding's
 * matchResources without resourceRules does not narrow the policy's.
 */
export function matchesResources(
  match: Json | undefined,
  attrs: AdmissionAttributes,
  rulesRequired: boolean,
): boolean {
  if (!isObject(match)) return !rulesRequired;
  const rules = Array.isArray(match.resourceRules) ? match.resourceRules : [];
  if (rules.length === 0 ? rulesRequired : !rules.some((rule) => matchesRule(rule, attrs)))
    return false;
  const excluded = Array.isArray(match.excludeResourceRules) ? match.excludeResourceRules : [];
  if (excluded.some((rule) => matchesRule(rule, attrs))) return false;
  // A Namespace is matched by its own labels; other cluster-scoped objects by any namespaceSelector.
  const namespaceLabels =
    attrs.resource === 'namespaces' && attrs.group === ''
      ? labelsOf(attrs.object ?? attrs.oldObject)
      : attrs.namespaceObject
        ? labelsOf(attrs.namespaceObject)
        : undefined;
  if (namespaceLabels && !matchesSelector(match.namespaceSelector, namespaceLabels)) return false;
  return [attrs.object, attrs.oldObject].some(
    (object) => object !== null && matchesSelector(match.objectSelector, labelsOf(object)),
  );
}
