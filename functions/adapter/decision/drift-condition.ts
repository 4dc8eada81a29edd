import { isCelError, parse, plan, celEnv, type CelResult } from '@bufbuild/cel';
import { ConfigError } from '../../../shared/errors';
import { adapterStatusSchema } from '../../../shared/hyperfleet/schemas';
import { ADAPTER_NAME } from '../../../shared/status/status-builder';
import { celInputOf, type PreconditionContext } from './preconditions';

/**
 * The reasons a consumer gives when the pull secret we wrote is missing or unusable. The local
 * HyperShift simulator (emulators/pullsecret/hypershift/pull-secret-check.ts) reports
 * `PullSecretNotFound` / `PullSecretInvalid`; the real HyperShift operator sets the HostedCluster
 * condition `PullSecretSynced=False` with `SecretNotFound` or `PullSecretInvalid`
 * (hypershift-operator/controllers/hostedcluster, reconcilePullSecretSync). How the HyperFleet
 * HyperShift adapter maps that condition into its own status is not public, so both spellings and
 * both condition types are accepted, and the whole condition is configurable.
 */
export const PULL_SECRET_DRIFT_REASONS = [
  'PullSecretNotFound',
  'PullSecretInvalid',
  'SecretNotFound',
] as const;

/**
 * The default DRIFT_REPORTED_CONDITION: the `hypershift` adapter reports, at the cluster's current
 * generation, Available=False (or PullSecretSynced=False) with a reason naming the pull secret.
 */
export const DEFAULT_DRIFT_REPORTED_CONDITION = `"hypershift" in statuses && statuses.hypershift.observed_generation == cluster.generation && statuses.hypershift.conditions.exists(c, (c.type == "Available" || c.type == "PullSecretSynced") && c.status == "False" && has(c.reason) && c.reason in [${PULL_SECRET_DRIFT_REASONS.map((r) => `"${r}"`).join(', ')}])`;

/** Whether another adapter reports our pull secret missing or unusable on its cluster. */
export type DriftResult =
  | {
      readonly kind: 'reported';
      /**
       * When the newest drift condition among the other adapters' statuses turned False (its
       * last_transition_time, one of PULL_SECRET_DRIFT_REASONS); undefined when the configured
       * condition reads something else. A transition after our last report is a new drift.
       */
      readonly since?: string;
    }
  | { readonly kind: 'none' }
  | { readonly kind: 'error'; readonly message: string };

export interface CompiledDriftCondition {
  readonly expression: string;
  readonly evaluate: (context: PreconditionContext) => DriftResult;
}

/** Parses and plans the expression once, at start; a syntax error is a configuration error. */
export function compileDriftCondition(expression: string): CompiledDriftCondition {
  let planned: (input: ReturnType<typeof celInputOf>) => CelResult;
  try {
    planned = plan(celEnv(), parse(expression));
  } catch (error) {
    throw new ConfigError(
      `Invalid DRIFT_REPORTED_CONDITION: the CEL expression does not parse: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  // CEL's own messages may quote the values they met: the text says which expression, never values.
  const failed = (why: string): DriftResult => ({
    kind: 'error',
    message: `DRIFT_REPORTED_CONDITION \`${expression}\` ${why}; drift is then not acted on (the resync still is)`,
  });
  return {
    expression,
    evaluate: (context) => {
      let result: CelResult;
      try {
        result = planned(celInputOf(context));
      } catch {
        return failed('raised an error (guard what it reads with has())');
      }
      if (isCelError(result)) return failed('raised an error (guard what it reads with has())');
      if (typeof result !== 'boolean') return failed(`returned ${typeof result}, not a boolean`);
      if (!result) return { kind: 'none' };
      const since = driftTransitionTime(context);
      return since ? { kind: 'reported', since } : { kind: 'reported' };
    },
  };
}

/** The newest last_transition_time of another adapter's condition that reports our pull secret. */
function driftTransitionTime(context: PreconditionContext): string | undefined {
  const reasons: ReadonlySet<string> = new Set(PULL_SECRET_DRIFT_REASONS);
  let newest: string | undefined;
  for (const [adapter, value] of Object.entries(context.statuses)) {
    const status = adapterStatusSchema.safeParse(value);
    if (adapter === ADAPTER_NAME || !status.success) continue;
    for (const condition of status.data.conditions) {
      const at = condition.last_transition_time;
      if (condition.status !== 'False' || !at || !reasons.has(condition.reason ?? '')) continue;
      if (newest === undefined || Date.parse(at) > Date.parse(newest)) newest = at;
    }
  }
  return newest;
}
