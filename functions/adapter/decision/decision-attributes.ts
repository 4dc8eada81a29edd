import { TRACE_ATTRIBUTES } from '../../../shared/tracing/attributes';
import type { SpanAttributes } from '../../../shared/tracing/spans';
import type { Decision } from './decision';

/** The decision's name as logs and spans spell it (`launch-apply`, `report-not-met`, a skip reason). */
export function decisionName(decision: Decision): string {
  switch (decision.kind) {
    case 'skip':
      return decision.reason;
    case 'report':
      return `report-${decision.outcome.kind}`;
    case 'launch':
      return `launch-${decision.operation}`;
    default:
      return decision.kind;
  }
}

/** Why, in a word, when the decision has one: the skip or launch reason, or the unmet precondition. */
function decisionReason(decision: Decision): string | undefined {
  if (decision.kind === 'skip') return decision.reason;
  if (decision.kind === 'launch') return decision.reason;
  if (decision.kind === 'report' && decision.outcome.kind === 'not-met')
    return decision.outcome.precondition;
  return undefined;
}

/** The root span's decision and reason attributes (names and codes only, never messages). */
export function decisionAttributes(decision: Decision): SpanAttributes {
  const reason = decisionReason(decision);
  return {
    [TRACE_ATTRIBUTES.decision]: decisionName(decision),
    ...(reason ? { [TRACE_ATTRIBUTES.reason]: reason } : {}),
  };
}
