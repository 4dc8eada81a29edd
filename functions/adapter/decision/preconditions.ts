import { isCelError, parse, plan, celEnv, type CelInput, type CelResult } from '@bufbuild/cel';
import * as z from 'zod';
import { ConfigError } from '../../../shared/errors';
import { toCel } from './cel-values';

/**
 * A precondition as configured: a CEL expression over `cluster` (without its pull secrets),
 * `statuses`, `event` and `pullSecret` (`inSpec`, `additionalInSpec`, `defaultConfigured`).
 */
export const preconditionSpecSchema = z.object({
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'must be an identifier such as dnsAvailable'),
  expression: z.string().min(1),
  /** Shown (after "Precondition NAME is not met: ") when the expression is false. */
  message: z.string().min(1).optional(),
});
export type PreconditionSpec = z.infer<typeof preconditionSpecSchema>;

const adapterAvailable = (adapter: string) =>
  `"${adapter}" in statuses && statuses.${adapter}.observed_generation == cluster.generation && statuses.${adapter}.conditions.exists(c, c.type == "Available" && c.status == "True")`;

/**
 * The defaults implement the seed's list against the current API, accepting the older shapes too:
 * platform is gcp (`spec.platform.type`, or `spec.provider`), a GCP project id
 * (`spec.platform.gcp.projectID`, or `spec.gcp.projectId`), a pull secret source, and the
 * validation, dns and placement adapters Available=True at the current generation.
 */
export const DEFAULT_PRECONDITIONS: readonly PreconditionSpec[] = [
  {
    name: 'platformIsGcp',
    expression:
      '(has(cluster.spec.platform) && has(cluster.spec.platform.type) && cluster.spec.platform.type == "gcp") || (has(cluster.spec.provider) && cluster.spec.provider == "gcp")',
    message:
      'the cluster platform is not gcp (spec.platform.type, or spec.provider in older clusters)',
  },
  {
    name: 'gcpProjectIdSet',
    expression:
      '(has(cluster.spec.platform) && has(cluster.spec.platform.gcp) && has(cluster.spec.platform.gcp.projectID) && cluster.spec.platform.gcp.projectID != "") || (has(cluster.spec.gcp) && has(cluster.spec.gcp.projectId) && cluster.spec.gcp.projectId != "")',
    message:
      'no GCP project id in spec.platform.gcp.projectID (or spec.gcp.projectId in older clusters)',
  },
  {
    name: 'pullSecretSourceConfigured',
    expression: 'pullSecret.inSpec || pullSecret.defaultConfigured',
    message: 'the cluster has no pull secret in its spec and no default pull secret is configured',
  },
  {
    name: 'validationAvailable',
    expression: adapterAvailable('validation'),
    message: 'the validation adapter has not reported Available=True at the current generation',
  },
  {
    name: 'dnsAvailable',
    expression: adapterAvailable('dns'),
    message: 'the dns adapter has not reported Available=True at the current generation',
  },
  {
    name: 'placementAvailable',
    expression: adapterAvailable('placement'),
    message: 'the placement adapter has not reported Available=True at the current generation',
  },
];

/** What an expression sees (built by preconditionContext: the cluster comes without its pull secrets). */
export interface PreconditionContext {
  readonly cluster: unknown;
  readonly statuses: Readonly<Record<string, unknown>>;
  readonly event: unknown;
  readonly pullSecret: {
    readonly inSpec: boolean;
    readonly additionalInSpec: boolean;
    readonly defaultConfigured: boolean;
  };
}

export interface CompiledPrecondition {
  readonly spec: PreconditionSpec;
  readonly evaluate: (context: PreconditionContext) => CelResult;
}

/** The first precondition that is false, one that failed to evaluate, or all met. */
export type PreconditionResult =
  | { readonly kind: 'met' }
  | { readonly kind: 'not-met'; readonly name: string; readonly message: string }
  | { readonly kind: 'error'; readonly name: string; readonly message: string };

/**
 * The context as CEL input, converted once however many expressions read it (the drift condition,
 * drift-condition.ts, reads the same context and shares the conversion): converting the whole
 * cluster and its statuses for each expression (six by default) was the adapter's largest per-event
 * cost after HTTP. CEL does not change its input, so the expressions can share it.
 */
const celInputs = new WeakMap<PreconditionContext, Record<string, CelInput>>();

export function celInputOf(context: PreconditionContext): Record<string, CelInput> {
  let input = celInputs.get(context);
  if (!input) {
    input = {
      cluster: toCel(context.cluster),
      statuses: toCel(context.statuses),
      event: toCel(context.event),
      pullSecret: toCel(context.pullSecret),
    };
    celInputs.set(context, input);
  }
  return input;
}

/** Parses and plans every expression once, at start; a syntax error is a configuration error. */
export function compilePreconditions(specs: readonly PreconditionSpec[]): CompiledPrecondition[] {
  const env = celEnv();
  return specs.map((spec) => {
    try {
      const evaluate = plan(env, parse(spec.expression));
      return {
        spec,
        evaluate: (context) => evaluate(celInputOf(context)),
      };
    } catch (error) {
      throw new ConfigError(
        `Invalid precondition ${spec.name}: the CEL expression does not parse: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  });
}

/**
 * Why an expression failed, in a fixed text: CEL's own messages quote the values they met
 * (`Cannot convert {"auths":...} to a BigInt`), and this text reaches the log and the cluster's
 * status condition. The expression is configuration, so naming it is safe.
 */
const evaluationFailed = (spec: PreconditionSpec) =>
  `its CEL expression \`${spec.expression}\` raised an error (a missing key, a type mismatch or a failed conversion; the values involved are not shown); guard what it reads with has() and type checks`;

/** Evaluates in order; stops at the first that is not true. Pure. */
export function evaluatePreconditions(
  compiled: readonly CompiledPrecondition[],
  context: PreconditionContext,
): PreconditionResult {
  for (const { spec, evaluate } of compiled) {
    const failed = (why: string): PreconditionResult => ({
      kind: 'error',
      name: spec.name,
      message: `Precondition ${spec.name} failed to evaluate: ${why}`,
    });
    let result: CelResult;
    try {
      result = evaluate(context);
    } catch {
      return failed(evaluationFailed(spec));
    }
    if (isCelError(result)) return failed(evaluationFailed(spec));
    if (typeof result !== 'boolean')
      return failed(`the expression returned ${typeof result}, not a boolean`);
    if (!result)
      return {
        kind: 'not-met',
        name: spec.name,
        message: `Precondition ${spec.name} is not met: ${spec.message ?? `${spec.expression} is false`}`,
      };
  }
  return { kind: 'met' };
}
