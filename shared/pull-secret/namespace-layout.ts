import * as z from 'zod';
import { kubernetesSecretName } from './names';

/**
 * The operator's namespace layout on the management clusters, chosen once (Terraform
 * `management_namespace`) and rendered into the adapter, the job, the RBAC and the admission fence
 * alike, so that all four agree where a cluster's pull secret may be:
 *
 * - one namespace per cluster, `clusters-{id}` (the default; seed 000), or any text with `{id}`
 *   once, e.g. `hc-{id}`;
 * - one shared namespace, e.g. `clusters` (seed 004: every HostedCluster in `clusters`, its
 *   `spec.pullSecret` a local reference to a Secret beside it).
 *
 * Either way the Secret is `{id}-pull-secret`, so the cluster id alone decides the place: placement
 * data (another adapter's, so untrusted) can agree with it or be refused, never steer a write.
 * The cluster name is not a placeholder: the customer chooses it, and the fence could not tie it
 * to the Secret it judges.
 *
 * A migration from one layout to another is two phases (docs/operations.md, "Changing the
 * namespace layout"): `keep-previous` writes the new place and keeps the copy in the previous
 * layout, so HyperShift's HostedCluster never points at nothing while it follows the new status;
 * `remove-previous` removes those copies. The fence admits reading (a dry run) and deleting in the
 * previous layout during both, writing only in the current one.
 */
export interface NamespaceLayout {
  /** `clusters-{id}` style (`{id}` once) or one shared namespace name. */
  readonly template: string;
  readonly migration?: NamespaceMigration;
}

export interface NamespaceMigration {
  /** The layout being left. */
  readonly previous: string;
  readonly phase: MigrationPhase;
}

export const MIGRATION_PHASES = ['keep-previous', 'remove-previous'] as const;
export type MigrationPhase = (typeof MIGRATION_PHASES)[number];

/** seed 000's layout: one namespace per cluster. */
export const DEFAULT_NAMESPACE_TEMPLATE = 'clusters-{id}';

export const DEFAULT_LAYOUT: NamespaceLayout = { template: DEFAULT_NAMESPACE_TEMPLATE };

const ID = '{id}';
// A cluster id is a DNS label itself (a lowercase UUID): what surrounds
// it may be letters, digits and "-", and the result must still be a DNS label.
const AROUND_ID = /^[a-z0-9-]*$/;
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** A layout template: `{id}` at most once, nothing else in braces; a DNS label either way. */
export const namespaceTemplate = z.string().superRefine((template, ctx) => {
  const problem = templateProblem(template);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

function templateProblem(template: string): string | undefined {
  const parts = template.split(ID);
  if (parts.length > 2)
    return `has {id} ${parts.length - 1} times; it may appear once (one namespace per cluster) or not at all (one shared namespace)`;
  const other = /\{[^}]*\}/.exec(parts.join(''));
  if (other)
    return `has the placeholder ${other[0]}; only {id} (the cluster id) is replaced: the cluster name is the customer's choice and cannot decide where a pull secret goes`;
  if (parts.some((part) => !AROUND_ID.test(part)))
    return 'may hold only lowercase letters, digits, "-" and {id}: a namespace is a DNS label';
  if (template === ID)
    return 'is {id} alone: the namespace would be the bare cluster id; give it a prefix or a suffix, e.g. clusters-{id}';
  if (SYSTEM_NAMESPACE.test(template))
    return 'names a system namespace (default, kube-*, openshift-*): choose one of your own, e.g. clusters';
  const longest = template.replace(ID, 'x'.repeat(MAX_CLUSTER_ID_LENGTH_IN_NAMESPACE));
  if (!DNS_LABEL.test(template.replace(ID, 'x')) || longest.length > 63)
    return parts.length === 2
      ? `gives no DNS label for a cluster id (it must start and end with a letter or digit, and leave room for a ${MAX_CLUSTER_ID_LENGTH_IN_NAMESPACE}-character id within 63)`
      : 'is not a DNS label (lowercase letters, digits and "-", starting and ending with a letter or digit, at most 63)';
  return undefined;
}

/** Namespaces of the platform itself: never a place for customers' pull secrets. */
const SYSTEM_NAMESPACE = /^(default|kube-.*|openshift-.*)$/;

/**
 * HyperFleet's cluster ids are lowercase UUIDv7s, 36 characters (hyperfleet-api
 * pkg/api/resource_id.go): a per-cluster template must leave room for one within 63.
 */
const MAX_CLUSTER_ID_LENGTH_IN_NAMESPACE = 36;

/**
 * The environment variables that carry the layout, shared by the adapter's and the job's schemas
 * (Terraform renders the same three values into both).
 */
export const namespaceLayoutEnvShape = {
  MANAGEMENT_NAMESPACE_TEMPLATE: namespaceTemplate.default(DEFAULT_NAMESPACE_TEMPLATE),
  PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE: namespaceTemplate.optional(),
  NAMESPACE_MIGRATION_PHASE: z
    .enum(MIGRATION_PHASES, { message: `must be one of ${MIGRATION_PHASES.join(', ')}` })
    .optional(),
};

type LayoutEnv = {
  MANAGEMENT_NAMESPACE_TEMPLATE: string;
  PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE?: string | undefined;
  NAMESPACE_MIGRATION_PHASE?: MigrationPhase | undefined;
};

/** The two migration variables come together or not at all: say which is missing. */
export function layoutEnvProblems(env: Partial<LayoutEnv>): { path: string[]; message: string }[] {
  const previous = env.PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE;
  const phase = env.NAMESPACE_MIGRATION_PHASE;
  if (previous !== undefined && phase === undefined)
    return [
      {
        path: ['NAMESPACE_MIGRATION_PHASE'],
        message: `is required with PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE: ${MIGRATION_PHASES.join(' or ')}`,
      },
    ];
  if (previous === undefined && phase !== undefined)
    return [
      {
        path: ['PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE'],
        message: 'is required with NAMESPACE_MIGRATION_PHASE: the layout being left',
      },
    ];
  if (previous !== undefined && previous === (env.MANAGEMENT_NAMESPACE_TEMPLATE ?? ''))
    return [
      {
        path: ['PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE'],
        message:
          'equals MANAGEMENT_NAMESPACE_TEMPLATE: a migration leaves one layout for another; unset both migration variables',
      },
    ];
  return [];
}

/** The layout the parsed variables describe. */
export function layoutOf(env: LayoutEnv): NamespaceLayout {
  const previous = env.PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE;
  const phase = env.NAMESPACE_MIGRATION_PHASE;
  return {
    template: env.MANAGEMENT_NAMESPACE_TEMPLATE,
    ...(previous !== undefined && phase !== undefined ? { migration: { previous, phase } } : {}),
  };
}

/** The layout as environment variables (what Terraform and the local stack set). */
export function layoutEnv(layout: NamespaceLayout): Record<string, string> {
  return {
    MANAGEMENT_NAMESPACE_TEMPLATE: layout.template,
    ...(layout.migration
      ? {
          PREVIOUS_MANAGEMENT_NAMESPACE_TEMPLATE: layout.migration.previous,
          NAMESPACE_MIGRATION_PHASE: layout.migration.phase,
        }
      : {}),
  };
}

/** The namespace a template gives a cluster (a valid template and id always give a DNS label). */
export function namespaceOf(template: string, clusterId: string): string {
  return template.replace(ID, clusterId);
}

/** One namespace for the whole fleet (no `{id}`). */
export function isSharedNamespace(template: string): boolean {
  return !template.includes(ID);
}

/** The namespace a cluster's pull secret is written to under the layout. */
export function currentNamespace(layout: NamespaceLayout, clusterId: string): string {
  return namespaceOf(layout.template, clusterId);
}

/** The previous layout's namespace for the cluster while a migration is under way. */
export function previousNamespace(layout: NamespaceLayout, clusterId: string): string | undefined {
  return layout.migration ? namespaceOf(layout.migration.previous, clusterId) : undefined;
}

/**
 * Why `namespace`/`name` cannot hold the pull secret of `clusterId` under the layout, or undefined
 * when it can: the fence's rule, so that the job refuses before the cluster does. A `write` goes to
 * the current layout only; a `remove` may also be in the previous layout while migrating.
 */
export function placeProblem(
  layout: NamespaceLayout,
  clusterId: string,
  place: { readonly namespace: string; readonly name: string },
  use: 'write' | 'remove',
): string | undefined {
  const name = kubernetesSecretName(clusterId);
  const allowed = [currentNamespace(layout, clusterId)];
  const previous = previousNamespace(layout, clusterId);
  if (use === 'remove' && previous !== undefined && previous !== allowed[0]) allowed.push(previous);
  if (place.name === name && allowed.includes(place.namespace)) return undefined;
  return `the pull secret of cluster ${clusterId} may only be ${allowed.map((ns) => `${ns}/${name}`).join(' or ')} (the layout MANAGEMENT_NAMESPACE_TEMPLATE=${describeLayout(layout)}: the rule the admission fence enforces), not ${JSON.stringify(`${place.namespace}/${place.name}`.slice(0, 140))}`;
}

/**
 * A place a `keep-previous` migration leaves as it is when the apply writes the new one: ours in
 * the previous layout's namespace (any management cluster), which HyperShift's HostedCluster may
 * still reference until it follows the status this run reports. `remove-previous` removes it as
 * any old place.
 */
export function keptByMigration(
  layout: NamespaceLayout,
  clusterId: string,
  place: { readonly namespace: string; readonly name: string },
): boolean {
  return (
    layout.migration?.phase === 'keep-previous' &&
    place.namespace === previousNamespace(layout, clusterId) &&
    place.name === kubernetesSecretName(clusterId)
  );
}

/**
 * Where an apply writes, given the namespace the adapter decided (MANAGEMENT_NAMESPACE): the
 * layout's own when the adapter decided the previous layout's (a launch queued before the apply
 * that started the migration runs after it), else what the adapter decided, which
 * requireOwnPlace then checks. The job's layout is the authority; the status reports the place.
 */
export function writeNamespace(
  layout: NamespaceLayout,
  clusterId: string,
  decided: string,
): string {
  return decided === previousNamespace(layout, clusterId)
    ? currentNamespace(layout, clusterId)
    : decided;
}

/** The layout in words for messages: `clusters-{id}`, or `clusters (migrating from …)`. */
export function describeLayout(layout: NamespaceLayout): string {
  return layout.migration
    ? `${layout.template} (migrating from ${layout.migration.previous}, phase ${layout.migration.phase})`
    : layout.template;
}

/**
 * The fence's namespace rule as CEL, for the cluster whose id is the CEL string expression
 * `owner`: the current layout's namespace, or while migrating also the previous one for a DELETE
 * or a dry run (the job reads its Secret with a dry-run test patch before removing it; a dry run
 * stores nothing, and real servers run validating admission on it too).
 * Terraform computes the same text (locals in the pullsecret-cluster-rbac module); a test compares
 * both renderings. Templates hold only [a-z0-9-] and `{id}`, so nothing here needs quoting.
 */
export function fenceNamespaceRule(layout: NamespaceLayout, owner: string): string {
  const current = `request.namespace == ${celNamespace(layout.template, owner)}`;
  if (!layout.migration) return current;
  return `${current} || ((request.operation == 'DELETE' || request.dryRun) && request.namespace == ${celNamespace(layout.migration.previous, owner)})`;
}

/** The fence's words for where a Secret may be: `clusters-CLUSTER` or `clusters`. */
export function fenceNamespaceWords(layout: NamespaceLayout): string {
  const words = (template: string) => template.replace(ID, 'CLUSTER');
  return layout.migration
    ? `${words(layout.template)} (or, to read or delete it, ${words(layout.migration.previous)})`
    : words(layout.template);
}

function celNamespace(template: string, owner: string): string {
  const [before, after] = template.split(ID) as [string, string | undefined];
  if (after === undefined) return `'${before}'`;
  return [before ? `'${before}'` : '', owner, after ? `'${after}'` : '']
    .filter(Boolean)
    .join(' + ');
}
