import * as z from 'zod';

/** The management namespace when placement names none: seed 000's `clusters-{id}`. */
export const DEFAULT_NAMESPACE_TEMPLATE = 'clusters-{id}';

const PLACEHOLDER = /\{([^{}]*)\}/g;
const KNOWN = new Set(['id', 'name']);

/**
 * `MANAGEMENT_NAMESPACE_TEMPLATE`: text with `{id}` (cluster id) and `{name}` (cluster name)
 * placeholders. Unknown placeholders and stray braces are rejected at start, so a typo is a
 * configuration error instead of a namespace nobody expects.
 */
export const namespaceTemplate = z
  .string()
  .default(DEFAULT_NAMESPACE_TEMPLATE)
  .superRefine((template, ctx) => {
    const unknown = [...template.matchAll(PLACEHOLDER)]
      .map((match) => match[1]!)
      .filter((name) => !KNOWN.has(name));
    if (unknown.length > 0)
      ctx.addIssue({
        code: 'custom',
        message: `has unknown placeholder(s) ${unknown.map((name) => `{${name}}`).join(', ')}; only {id} and {name} are replaced`,
      });
    else if (/[{}]/.test(template.replace(PLACEHOLDER, '')))
      ctx.addIssue({
        code: 'custom',
        message: 'has an unmatched "{" or "}"; placeholders are {id} and {name}',
      });
  });

/** The namespace the template gives for a cluster; the caller checks that it is a DNS label. */
export function renderNamespace(
  template: string,
  cluster: { readonly id: string; readonly name: string },
): string {
  return template.replace(PLACEHOLDER, (_match, name: string) =>
    name === 'id' ? cluster.id : cluster.name,
  );
}
