import { parseArgs } from 'node:util';
import { parseDurationMs } from '../../shared/config/durations';
import { parseBatchSelector, type BatchSelector } from '../../shared/batch/batch-request';

export const USAGE = `Usage: npm run -s fleet -- COMMAND [FLAGS]
  pause [--management-cluster NAME]
                    pauses the launch queues (the fleet's and every management cluster's), or only
                    that management cluster's: the adapter keeps deciding and recording (statuses
                    say JobQueued), no execution starts there, batches leave its clusters alone
  resume [--management-cluster NAME]
                    resumes them: the waiting launches go out at the queue's rate; resuming one
                    management cluster also asks for its resync (what batches left alone)
  report [--json]   every cluster's pullsecret status, then the fleet summary; exit 1 when a
                    cluster fails permanently or has not converged within --not-converged-after
  resync CLUSTER_ID... | --management-cluster NAME | --default | --all
                    re-applies those clusters now, in one batch execution: every converged
                    cluster selected gets its pull secret written again where it is missing or
                    changed (clusters not converged are the adapter's already)
Flags:
  --queue projects/P/locations/L/queues/Q
                    the launch queue (terraform output launch_queue; default LAUNCH_QUEUE); report
                    shows its state when given (cloudtasks.queues.get)
  --hyperfleet-api URL
                    the HyperFleet API base URL (default HYPERFLEET_API_BASE_URL); the token and
                    tenancy come from HYPERFLEET_API_* as for the adapter (docs/configuration.md)
  --not-converged-after DURATION
                    report: how long a cluster may wait to converge at its generation (default 30m)
  --json            report: one JSON document (schema_version 1, docs/operations.md)
  --topic projects/P/topics/T
                    resync: the fleet-requests topic (terraform output fleet_requests_topic;
                    default FLEET_REQUESTS_TOPIC); publishing needs pubsub.topics.publish on it
  --default, --all  resync: every cluster on the platform default pull secret, or every cluster
  --stack FILE      the local stack's stack.json (default .local/stack.json, used when present
                    and neither --queue nor --hyperfleet-api is given): its endpoints, as the
                    stack's operator
  --management-cluster NAME
                    resync: the clusters our status says are on that management cluster;
                    pause, resume: that management cluster's launch queue (LAUNCH_QUEUE-NAME)
Google calls use Application Default Credentials (gcloud auth application-default login).
Exit codes: 0 done (report: nothing late or failing for good), 1 report: a cluster fails
permanently or has not converged past the threshold, 2 bad arguments or configuration,
3 a call failed (unreachable, unauthenticated, refused).`;

export const EXIT = { ok: 0, findings: 1, usage: 2, failed: 3 } as const;

export class UsageError extends Error {}

const QUEUE_NAME = /^projects\/[^/]+\/locations\/[^/]+\/queues\/[^/]+$/;
const TOPIC_NAME = /^projects\/[^/]+\/topics\/[^/]+$/;
const MANAGEMENT_CLUSTER = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** The report's default threshold; the console's fleet panel and the Terraform alert default agree. */
export const DEFAULT_NOT_CONVERGED_AFTER = '30m';

/** Where to find the fleet: flags only; the caller fills the rest from the stack or the env. */
export interface Targets {
  readonly queue?: string;
  readonly topic?: string;
  readonly hyperfleetApi?: string;
  readonly stack?: string;
}

export type FleetCommand =
  | { readonly kind: 'help' }
  | ({ readonly kind: 'pause'; readonly managementCluster?: string } & Targets)
  | ({ readonly kind: 'resume'; readonly managementCluster?: string } & Targets)
  | ({ readonly kind: 'resync'; readonly selector: BatchSelector } & Targets)
  | ({
      readonly kind: 'report';
      readonly json: boolean;
      readonly notConvergedAfterMs: number;
    } & Targets);

const FLAGS = {
  queue: { type: 'string' },
  'hyperfleet-api': { type: 'string' },
  'not-converged-after': { type: 'string' },
  json: { type: 'boolean', default: false },
  stack: { type: 'string' },
  topic: { type: 'string' },
  default: { type: 'boolean', default: false },
  all: { type: 'boolean', default: false },
  'management-cluster': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The command line, checked; a UsageError says what is wrong. Pure. */
export function parseFleetArgs(argv: readonly string[]): FleetCommand {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof FLAGS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: FLAGS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  const [kind, ...extra] = positionals;
  if (kind === undefined) throw new UsageError('give a command: pause, resume, report or resync.');
  if (kind !== 'resync' && extra.length > 0)
    throw new UsageError(`unexpected argument "${extra[0]}".`);
  if (kind !== 'resync' && (values.default || values.all || values.topic !== undefined))
    throw new UsageError('--default, --all and --topic are resync flags.');
  const queue = values.queue;
  if (queue !== undefined && !QUEUE_NAME.test(queue))
    throw new UsageError(`--queue "${queue}" is not projects/P/locations/L/queues/Q.`);
  const topic = values.topic;
  if (topic !== undefined && !TOPIC_NAME.test(topic))
    throw new UsageError(`--topic "${topic}" is not projects/P/topics/T.`);
  const targets: Targets = {
    ...(queue !== undefined ? { queue } : {}),
    ...(topic !== undefined ? { topic } : {}),
    ...(values['hyperfleet-api'] !== undefined ? { hyperfleetApi: values['hyperfleet-api'] } : {}),
    ...(values.stack !== undefined ? { stack: values.stack } : {}),
  };
  if (kind === 'pause' || kind === 'resume') {
    if (values.json || values['not-converged-after'] !== undefined)
      throw new UsageError(`--json and --not-converged-after are report flags.`);
    const managementCluster = values['management-cluster'];
    if (managementCluster !== undefined && !MANAGEMENT_CLUSTER.test(managementCluster))
      throw new UsageError(
        `--management-cluster "${managementCluster.slice(0, 70)}" is not a management cluster name (a DNS label, as in MANAGEMENT_CLUSTERS).`,
      );
    return { kind, ...(managementCluster !== undefined ? { managementCluster } : {}), ...targets };
  }
  if (kind === 'resync') {
    if (values.json || values['not-converged-after'] !== undefined)
      throw new UsageError(`--json and --not-converged-after are report flags.`);
    const chosen = [
      extra.length > 0 ? `clusters=${extra.join(',')}` : undefined,
      values['management-cluster'] !== undefined
        ? `management-cluster=${values['management-cluster']}`
        : undefined,
      values.default ? 'default' : undefined,
      values.all ? 'all' : undefined,
    ].filter((c): c is string => c !== undefined);
    if (chosen.length !== 1)
      throw new UsageError(
        'resync takes exactly one of: CLUSTER_ID..., --management-cluster NAME, --default, --all.',
      );
    const selector = parseBatchSelector(chosen[0]!);
    if ('problem' in selector) throw new UsageError(`resync: ${selector.problem}.`);
    return { kind, selector, ...targets };
  }
  if (kind === 'report') {
    if (values['management-cluster'] !== undefined)
      throw new UsageError(
        'report --management-cluster is not supported: the report covers the fleet.',
      );
    const text = values['not-converged-after'] ?? DEFAULT_NOT_CONVERGED_AFTER;
    const ms = parseDurationMs(text);
    if (ms === undefined || ms <= 0)
      throw new UsageError(
        `--not-converged-after "${text}" is not a duration such as 30m, 90s or 2h.`,
      );
    return { kind, json: values.json, notConvergedAfterMs: ms, ...targets };
  }
  throw new UsageError(`unknown command "${kind}": use pause, resume, report or resync.`);
}
