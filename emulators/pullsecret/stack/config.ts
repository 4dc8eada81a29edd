import * as z from 'zod';
import { parseEnv, type Env } from '../../../shared/config/parse-env';
import {
  DEFAULT_NAMESPACE_TEMPLATE,
  namespaceTemplate,
  type NamespaceLayout,
} from '../../../shared/pull-secret/namespace-layout';
import { DELIVERY_MODES, type DeliveryMode } from './eventarc-conversion';

// Each instance is a functions-framework process (~60 MB); more than this only slows a laptop down.
const MAX_ADAPTER_INSTANCES = 16;

/** Environment of the local stack itself (`npm start`, the e2e tests); keys are the variable names. */
export const localStackEnvSchema = z.object({
  PULLSECRET_ADAPTER_INSTANCES: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of adapter instances, e.g. 2')
    .transform(Number)
    .refine(
      (n) => n >= 1 && n <= MAX_ADAPTER_INSTANCES,
      `must be between 1 and ${MAX_ADAPTER_INSTANCES} (1 turns the round-robin proxy's cross-instance races off)`,
    )
    .default(2),
  LOCAL_DELIVERY: z
    .enum(DELIVERY_MODES, {
      message:
        'must be push (push subscriptions) or eventarc (binary-mode CloudEvents as Eventarc sends them)',
    })
    .default('push'),
  /**
   * The namespace layout the stack runs with, as Terraform's management_namespace.template:
   * `clusters-{id}` (default) or one shared namespace such as seed 004's `clusters`.
   */
  MANAGEMENT_NAMESPACE_TEMPLATE: namespaceTemplate.default(DEFAULT_NAMESPACE_TEMPLATE),
});

/** Validated local stack configuration. */
export interface LocalStackConfig {
  /** Adapter processes behind the round-robin proxy on the push endpoint, as Cloud Run scales out. */
  readonly adapterInstances: number;
  /** How Pub/Sub messages reach the adapter and the reporter: as push subscriptions or Eventarc deliver them. */
  readonly delivery: DeliveryMode;
  /** The operator's namespace layout (MANAGEMENT_NAMESPACE_TEMPLATE). */
  readonly namespaceLayout: NamespaceLayout;
}

/** Reads and validates the local stack's environment; throws ConfigError naming the variable. */
export function loadLocalStackConfig(env: Env): LocalStackConfig {
  const e = parseEnv(localStackEnvSchema, env, 'local stack');
  return {
    adapterInstances: e.PULLSECRET_ADAPTER_INSTANCES,
    delivery: e.LOCAL_DELIVERY,
    namespaceLayout: { template: e.MANAGEMENT_NAMESPACE_TEMPLATE },
  };
}
