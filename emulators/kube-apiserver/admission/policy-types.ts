import { isObject, type Json } from '../merge-patch';
import type { FieldCause } from '../metadata-rules';
import type { Obj } from '../object-book';
import { throwIfInvalid } from '../generic/object-meta';
import type { ResourceType } from '../generic/resource-type';
import { compile } from './cel';

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];
const ACTIONS = ['Audit', 'Deny', 'Warn'];

const required = (field: string, detail = ''): FieldCause => ({
  field,
  message: `Required value${detail ? `: ${detail}` : ''}`,
  reason: 'FieldValueRequired',
});
const unsupported = (field: string, value: Json | undefined, supported: string[]): FieldCause => ({
  field,
  message: `Unsupported value: ${JSON.stringify(value ?? null)}: supported values: ${supported.map((s) => `"${s}"`).join(', ')}`,
  reason: 'FieldValueNotSupported',
});
const list = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);

/** A CEL expression field: required (unless optional), and it must compile. */
function expressionCauses(value: Json | undefined, field: string, optional = false): FieldCause[] {
  if (value === undefined || value === '') return optional ? [] : [required(field)];
  if (typeof value !== 'string')
    return [{ field, message: `Invalid value: ${JSON.stringify(value)}: must be a string` }];
  try {
    compile(value);
    return [];
  } catch (error) {
    return [
      { field, message: `Invalid value: ${JSON.stringify(value)}: ${(error as Error).message}` },
    ];
  }
}

/** `resourceRules` (or `excludeResourceRules`) entries: each list required, operations known. */
function ruleCauses(rules: Json | undefined, field: string): FieldCause[] {
  return list(rules).flatMap((rule, i) => {
    const r = isObject(rule) ? rule : {};
    const at = `${field}[${i}]`;
    const causes = ['apiGroups', 'apiVersions', 'operations', 'resources']
      .filter((key) => list(r[key]).length === 0)
      .map((key) => required(`${at}.${key}`));
    list(r.operations).forEach((op, j) => {
      if (typeof op !== 'string' || !OPERATIONS.includes(op))
        causes.push(unsupported(`${at}.operations[${j}]`, op, OPERATIONS));
    });
    return causes;
  });
}

/** Defaults the server fills in on matchConstraints/matchResources. */
function withMatchDefaults(match: Obj): Obj {
  return {
    namespaceSelector: {},
    objectSelector: {},
    matchPolicy: 'Equivalent',
    ...match,
    ...(Array.isArray(match.resourceRules)
      ? { resourceRules: match.resourceRules.map((r) => (isObject(r) ? { scope: '*', ...r } : r)) }
      : {}),
  };
}

function normalisePolicy(type: ResourceType) {
  return (object: Obj): Obj => {
    const spec = isObject(object.spec) ? { ...object.spec } : {};
    const causes: FieldCause[] = [];
    if (spec.failurePolicy === undefined) spec.failurePolicy = 'Fail';
    else if (!['Fail', 'Ignore'].includes(String(spec.failurePolicy)))
      causes.push(unsupported('spec.failurePolicy', spec.failurePolicy, ['Fail', 'Ignore']));
    const match = isObject(spec.matchConstraints) ? spec.matchConstraints : undefined;
    if (!match) causes.push(required('spec.matchConstraints'));
    else {
      if (list(match.resourceRules).length === 0)
        causes.push(required('spec.matchConstraints.resourceRules'));
      causes.push(...ruleCauses(match.resourceRules, 'spec.matchConstraints.resourceRules'));
      causes.push(
        ...ruleCauses(match.excludeResourceRules, 'spec.matchConstraints.excludeResourceRules'),
      );
      spec.matchConstraints = withMatchDefaults(match);
    }
    if (list(spec.validations).length === 0 && list(spec.auditAnnotations).length === 0)
      causes.push(
        required(
          'spec.validations',
          'validations or auditAnnotations must contain at least one item',
        ),
      );
    list(spec.validations).forEach((v, i) => {
      const validation = isObject(v) ? v : {};
      const at = `spec.validations[${i}]`;
      causes.push(...expressionCauses(validation.expression, `${at}.expression`));
      causes.push(
        ...expressionCauses(validation.messageExpression, `${at}.messageExpression`, true),
      );
      if (validation.reason !== undefined && !REASONS.includes(String(validation.reason)))
        causes.push(unsupported(`${at}.reason`, validation.reason, REASONS));
    });
    list(spec.matchConditions).forEach((c, i) => {
      const condition = isObject(c) ? c : {};
      if (typeof condition.name !== 'string' || condition.name === '')
        causes.push(required(`spec.matchConditions[${i}].name`));
      causes.push(
        ...expressionCauses(condition.expression, `spec.matchConditions[${i}].expression`),
      );
    });
    throwIfInvalid(type, object, causes);
    return { ...object, spec };
  };
}

function normaliseBinding(type: ResourceType) {
  return (object: Obj): Obj => {
    const spec = isObject(object.spec) ? { ...object.spec } : {};
    const causes: FieldCause[] = [];
    if (typeof spec.policyName !== 'string' || spec.policyName === '')
      causes.push(required('spec.policyName'));
    const actions = list(spec.validationActions);
    if (actions.length === 0)
      causes.push(required('spec.validationActions', 'at least one validation action is required'));
    actions.forEach((action, i) => {
      if (typeof action !== 'string' || !ACTIONS.includes(action))
        causes.push(unsupported(`spec.validationActions[${i}]`, action, ACTIONS));
    });
    if (actions.includes('Deny') && actions.includes('Warn'))
      causes.push({
        field: 'spec.validationActions',
        message:
          'Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      });
    if (isObject(spec.matchResources)) {
      causes.push(
        ...ruleCauses(spec.matchResources.resourceRules, 'spec.matchResources.resourceRules'),
      );
      spec.matchResources = withMatchDefaults(spec.matchResources);
    }
    throwIfInvalid(type, object, causes);
    return { ...object, spec };
  };
}

const base = {
  group: 'admissionregistration.k8s.io',
  versions: ['v1'],
  shortNames: [],
  categories: ['api-extensions'],
  namespaced: false,
  typeMetaFromUrl: true,
} as const;

/** `admissionregistration.k8s.io/v1` ValidatingAdmissionPolicy (validated: CEL must compile). */
export const POLICY_TYPE: ResourceType = {
  ...base,
  plural: 'validatingadmissionpolicies',
  singular: 'validatingadmissionpolicy',
  kind: 'ValidatingAdmissionPolicy',
  listKind: 'ValidatingAdmissionPolicyList',
  statusSubresource: true,
  normalise: (object) => normalisePolicy(POLICY_TYPE)(object),
};

/** `admissionregistration.k8s.io/v1` ValidatingAdmissionPolicyBinding. */
export const BINDING_TYPE: ResourceType = {
  ...base,
  plural: 'validatingadmissionpolicybindings',
  singular: 'validatingadmissionpolicybinding',
  kind: 'ValidatingAdmissionPolicyBinding',
  listKind: 'ValidatingAdmissionPolicyBindingList',
  statusSubresource: false,
  normalise: (object) => normaliseBinding(BINDING_TYPE)(object),
};
