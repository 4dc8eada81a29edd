import type { ServiceAccount } from './token-book';

/** One entry of the metadata tree: a directory, a value, or an account's token endpoint. */
export type MetadataNode =
  | { readonly kind: 'directory'; readonly entries: Readonly<Record<string, MetadataNode>> }
  | { readonly kind: 'value'; readonly text: string; readonly json: unknown }
  | { readonly kind: 'token'; readonly account: ServiceAccount };

/** What a Cloud Run instance's metadata server knows about itself. */
export interface InstanceFacts {
  readonly account: ServiceAccount;
  readonly defaultScopes: readonly string[];
  readonly projectId: string;
  readonly projectNumber: string;
  readonly region: string;
  readonly instanceId: string;
}

const value = (text: string, json: unknown = text): MetadataNode => ({ kind: 'value', text, json });
const directory = (entries: Record<string, MetadataNode>): MetadataNode => ({
  kind: 'directory',
  entries,
});

/**
 * The tree a Cloud Run instance serves (rules.ts [C]): the project, the region, the zone Cloud
 * Run reports (`REGION-1`), the instance id, and the service account under both `default` and its
 * email. Nothing else of Compute Engine's tree (attributes, network interfaces) exists here.
 */
export function buildTree(facts: InstanceFacts): MetadataNode {
  const projectPrefix = `projects/${facts.projectNumber}`;
  const accountDirectory = directory({
    aliases: value('default', ['default']),
    email: value(facts.account.email),
    scopes: value(`${facts.defaultScopes.join('\n')}\n`, [...facts.defaultScopes]),
    token: { kind: 'token', account: facts.account },
  });
  const v1 = directory({
    instance: directory({
      id: value(facts.instanceId),
      region: value(`${projectPrefix}/regions/${facts.region}`),
      'service-accounts': directory({
        default: accountDirectory,
        [facts.account.email]: accountDirectory,
      }),
      zone: value(`${projectPrefix}/zones/${facts.region}-1`),
    }),
    project: directory({
      'numeric-project-id': value(facts.projectNumber, Number(facts.projectNumber)),
      'project-id': value(facts.projectId),
    }),
  });
  return directory({ computeMetadata: directory({ v1 }) });
}

/** Where a path leads: a node, and whether it was asked for as a directory (trailing slash). */
export function resolve(
  root: MetadataNode,
  pathname: string,
): { node: MetadataNode; asDirectory: boolean } | undefined {
  const asDirectory = pathname.endsWith('/');
  const segments = pathname.split('/').filter((segment) => segment !== '');
  let node: MetadataNode | undefined = root;
  for (const segment of segments) {
    if (node.kind !== 'directory' || !Object.hasOwn(node.entries, segment)) return undefined;
    node = node.entries[segment];
    if (!node) return undefined;
  }
  return { node, asDirectory };
}

/** A directory's listing: one name a line, directories with a trailing slash ([Q]). */
export function listing(node: Extract<MetadataNode, { kind: 'directory' }>): string {
  return Object.entries(node.entries)
    .map(([name, child]) => (child.kind === 'directory' ? `${name}/\n` : `${name}\n`))
    .join('');
}

/** `?recursive=true`: the directory as JSON, keys in camelCase as the real server writes them. */
export function recursiveJson(node: MetadataNode): unknown {
  if (node.kind === 'value') return node.json;
  if (node.kind === 'token') return undefined;
  const out: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(node.entries)) {
    if (child.kind === 'token') continue;
    const key = name.includes('@')
      ? name
      : name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    out[key] = recursiveJson(child);
  }
  return out;
}
