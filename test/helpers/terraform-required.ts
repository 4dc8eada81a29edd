import { isObject, type SchemaBlock, type TfBody } from './terraform';

/** A block's static occurrences (hcl2json gives them as a list) and the content of its dynamic ones. */
function occurrences(
  body: TfBody,
  name: string,
): { written: TfBody[]; dynamic: TfBody[] | undefined } {
  const value = body[name];
  const written = (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
    isObject,
  );
  const definitions = isObject(body.dynamic) ? body.dynamic[name] : undefined;
  if (!Array.isArray(definitions)) return { written, dynamic: undefined };
  const dynamic = definitions
    .filter(isObject)
    .flatMap((definition) => (Array.isArray(definition.content) ? definition.content : []))
    .filter(isObject);
  return { written, dynamic };
}

/**
 * What `terraform validate` checks beyond names, as far as a snapshot states it: every required
 * argument is set (at the top and in every block that is written), and each nested block appears
 * at least min_items and at most max_items times. A dynamic block's count is only known at plan
 * time, so its block is counted only when written out, and then only against max_items.
 */
export function requiredProblems(body: TfBody, schema: SchemaBlock, where: string): string[] {
  const problems: string[] = [];
  for (const [name, attribute] of Object.entries(schema.attribute_details ?? {}))
    if (attribute.required && (body[name] === undefined || body[name] === null))
      problems.push(`${where}: missing required argument "${name}"`);
  for (const [name, block] of Object.entries(schema.blocks)) {
    const { written, dynamic } = occurrences(body, name);
    if (dynamic === undefined && block.min_items && written.length < block.min_items)
      problems.push(
        `${where}: block "${name}" is required (at least ${block.min_items}), found ${written.length}`,
      );
    if (block.max_items && written.length > block.max_items)
      problems.push(
        `${where}: block "${name}" may appear at most ${block.max_items} time(s), found ${written.length}`,
      );
    for (const item of [...written, ...(dynamic ?? [])])
      problems.push(...requiredProblems(item, block, `${where}.${name}`));
  }
  return problems;
}
