import { isObject, type Json } from '../merge-patch';
import { metadataOf, type Obj } from '../object-book';
import { KubeError } from '../status';
import { compile, type Program } from './cel';
import { matchesResources, type AdmissionAttributes } from './match';

/** The outcome of admission: denied (the Status to answer), plus warnings for `Warn` bindings. */
export interface AdmissionResult {
  readonly denied?: KubeError;
  readonly warnings: string[];
}

const CODES: Record<string, number> = {
  Forbidden: 403,
  Unauthorized: 401,
  RequestEntityTooLarge: 413,
  Invalid: 422,
};

/** Compiled expressions per stored policy object (a new version of the policy is a new object). */
const programs = new WeakMap<Obj, Map<string, Program>>();

function programOf(policy: Obj, expression: string): Program {
  let cache = programs.get(policy);
  if (!cache) programs.set(policy, (cache = new Map()));
  let program = cache.get(expression);
  if (!program) cache.set(expression, (program = compile(expression)));
  return program;
}

/** The CEL variables of a request (object, oldObject, request, params, namespaceObject). */
export function variablesOf(attrs: AdmissionAttributes): Record<string, unknown> {
  return {
    object: attrs.object,
    oldObject: attrs.oldObject,
    params: null,
    namespaceObject: attrs.namespaceObject,
    request: {
      kind: { group: attrs.group, version: attrs.version, kind: attrs.kind },
      resource: { group: attrs.group, version: attrs.version, resource: attrs.resource },
      subResource: attrs.subresource,
      requestKind: { group: attrs.group, version: attrs.version, kind: attrs.kind },
      requestResource: { group: attrs.group, version: attrs.version, resource: attrs.resource },
      name: attrs.name,
      namespace: attrs.namespace,
      operation: attrs.operation,
      userInfo: {
        username: attrs.username,
        groups: [...(attrs.groups ?? ['system:authenticated'])],
      },
      dryRun: attrs.dryRun,
    },
  };
}

/** One policy's verdict for one binding: allowed, or denied with a reason and message. */
type Verdict = { allowed: true } | { allowed: false; reason: string; message: string };

/** Evaluates one policy (matchConditions, then validations in order) as the binding applies it. */
export function evaluatePolicy(policy: Obj, attrs: AdmissionAttributes): Verdict | 'skip' {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const failClosed = spec.failurePolicy !== 'Ignore';
  const variables = variablesOf(attrs);
  const onError = (message: string): Verdict =>
    failClosed ? { allowed: false, reason: 'Invalid', message } : { allowed: true };
  const list = (value: Json | undefined) => (Array.isArray(value) ? value.filter(isObject) : []);

  // matchConditions: all must be true; an error follows failurePolicy.
  for (const condition of list(spec.matchConditions)) {
    const result = programOf(policy, String(condition.expression))(variables);
    if (!result.ok)
      return onError(
        `failed to evaluate matchCondition '${String(condition.name)}': ${result.error}`,
      );
    if (result.value !== true) return 'skip';
  }
  for (const validation of list(spec.validations)) {
    const expression = String(validation.expression);
    const result = programOf(policy, expression)(variables);
    if (!result.ok) return onError(`expression '${expression}' resulted in error: ${result.error}`);
    if (typeof result.value !== 'boolean')
      return onError(`expression '${expression}' resulted in error: must evaluate to bool`);
    if (result.value) continue;
    return {
      allowed: false,
      reason: typeof validation.reason === 'string' ? validation.reason : 'Invalid',
      message: messageOf(policy, validation, variables),
    };
  }
  return { allowed: true };
}

/** messageExpression when it yields a non-empty one-line string, else message, else the expression. */
function messageOf(policy: Obj, validation: Obj, variables: Record<string, unknown>): string {
  if (typeof validation.messageExpression === 'string' && validation.messageExpression !== '') {
    const result = programOf(policy, validation.messageExpression)(variables);
    if (
      result.ok &&
      typeof result.value === 'string' &&
      result.value.trim() !== '' &&
      !result.value.includes('\n')
    )
      return result.value;
  }
  if (typeof validation.message === 'string' && validation.message !== '')
    return validation.message;
  return `failed expression: ${String(validation.expression)}`;
}

/** The Status a denial answers, worded as the API server's admission plugin words it. */
export function denial(
  attrs: AdmissionAttributes,
  policy: string,
  binding: string,
  verdict: { reason: string; message: string },
): KubeError {
  const cause = `ValidatingAdmissionPolicy '${policy}' with binding '${binding}' denied request: ${verdict.message}`;
  const resource = attrs.group === '' ? attrs.resource : `${attrs.resource}.${attrs.group}`;
  return new KubeError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${resource} "${attrs.name}" is forbidden: ${cause}`,
    reason: verdict.reason,
    details: {
      name: attrs.name,
      ...(attrs.group ? { group: attrs.group } : {}),
      kind: attrs.resource,
      causes: [{ message: cause }],
    },
    code: CODES[verdict.reason] ?? 422,
  });
}

/**
 * Runs every binding (in name order) whose policy matches the request; the first `Deny` binding
 * whose policy refuses decides. Bindings to a policy that does not exist are ignored, as on the
 * real server. Policies with `paramKind` are evaluated with `params` null.
 */
export function admit(
  policies: readonly Obj[],
  bindings: readonly Obj[],
  attrs: AdmissionAttributes,
): AdmissionResult {
  const byName = new Map(policies.map((p) => [String(metadataOf(p).name), p]));
  const warnings: string[] = [];
  const sorted = [...bindings].sort((a, b) =>
    String(metadataOf(a).name).localeCompare(String(metadataOf(b).name)),
  );
  for (const binding of sorted) {
    const spec = isObject(binding.spec) ? binding.spec : {};
    const policy = byName.get(String(spec.policyName));
    if (!policy) continue;
    const policySpec = isObject(policy.spec) ? policy.spec : {};
    if (!matchesResources(policySpec.matchConstraints, attrs, true)) continue;
    if (spec.matchResources !== undefined && !matchesResources(spec.matchResources, attrs, false))
      continue;
    const verdict = evaluatePolicy(policy, attrs);
    if (verdict === 'skip' || verdict.allowed) continue;
    const actions = Array.isArray(spec.validationActions) ? spec.validationActions : [];
    const policyName = String(metadataOf(policy).name);
    const bindingName = String(metadataOf(binding).name);
    if (actions.includes('Warn'))
      warnings.push(
        `Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${verdict.message}`,
      );
    if (actions.includes('Deny'))
      return { denied: denial(attrs, policyName, bindingName, verdict), warnings };
  }
  return { warnings };
}
