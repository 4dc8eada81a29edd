import type { TfModule } from './terraform';

/**
 * The dependency graph Terraform builds for one module, from the parsed HCL: a resource or data
 * source depends on what its body references (resources, data sources, locals expanded to what
 * they reference) and on its depends_on entries. Addresses are `type.name` and `data.type.name`.
 * Module calls are opaque (`module.NAME`): provider-free submodules create nothing.
 */
export interface TfGraph {
  /** Direct dependencies of an address. */
  readonly edges: ReadonlyMap<string, ReadonlySet<string>>;
  /** Everything an address depends on, directly or not. */
  dependsOn(address: string): ReadonlySet<string>;
}

const RESOURCE_REF =
  /(?<![.\w])((?:google|google-beta|kubernetes|time|random)_[a-z0-9_]+|terraform_data)\.([A-Za-z_][\w-]*)/g;
const DATA_REF = /\bdata\.([a-z][a-z0-9_]*)\.([A-Za-z_][\w-]*)/g;
const LOCAL_REF = /\blocal\.([A-Za-z_][\w-]*)/g;
const MODULE_REF = /\bmodule\.([A-Za-z_][\w-]*)/g;

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((item) => strings(item, out));
  else if (value && typeof value === 'object')
    Object.values(value).forEach((item) => strings(item, out));
  return out;
}

/** The addresses one HCL value references, with locals left as `local.NAME`. */
function directReferences(value: unknown): Set<string> {
  const found = new Set<string>();
  for (const text of strings(value)) {
    for (const match of text.matchAll(RESOURCE_REF)) found.add(`${match[1]}.${match[2]}`);
    for (const match of text.matchAll(DATA_REF)) found.add(`data.${match[1]}.${match[2]}`);
    for (const match of text.matchAll(LOCAL_REF)) found.add(`local.${match[1]}`);
    for (const match of text.matchAll(MODULE_REF)) found.add(`module.${match[1]}`);
  }
  return found;
}

/** Expands `local.NAME` references (recursively) into the resources and data sources behind them. */
function expandLocals(
  refs: Set<string>,
  locals: Record<string, unknown>,
  seen = new Set<string>(),
): Set<string> {
  const out = new Set<string>();
  for (const ref of refs) {
    if (!ref.startsWith('local.')) {
      out.add(ref);
      continue;
    }
    if (seen.has(ref)) continue;
    seen.add(ref);
    const name = ref.slice('local.'.length);
    for (const inner of expandLocals(directReferences(locals[name]), locals, seen)) out.add(inner);
  }
  return out;
}

export function buildGraph(mod: TfModule): TfGraph {
  const edges = new Map<string, Set<string>>();
  const add = (address: string, body: Record<string, unknown>) =>
    edges.set(address, expandLocals(directReferences(body), mod.locals));
  for (const r of mod.resources) add(`${r.type}.${r.name}`, r.body);
  for (const d of mod.data) add(`data.${d.type}.${d.name}`, d.body);

  const closure = new Map<string, Set<string>>();
  const dependsOn = (address: string): Set<string> => {
    const cached = closure.get(address);
    if (cached) return cached;
    const all = new Set<string>();
    closure.set(address, all); // cycles end here (Terraform would reject them anyway)
    for (const next of edges.get(address) ?? []) {
      all.add(next);
      for (const further of dependsOn(next)) all.add(further);
    }
    return all;
  };
  return { edges, dependsOn };
}

/** A copy of the module without one depends_on entry of one resource: to prove a rule notices. */
export function withoutDependency(mod: TfModule, address: string, dependency: string): TfModule {
  return {
    ...mod,
    resources: mod.resources.map((r) => {
      if (`${r.type}.${r.name}` !== address) return r;
      const dependsOn = (r.body.depends_on as string[] | undefined) ?? [];
      const kept = dependsOn.filter((entry) => !entry.includes(dependency));
      if (kept.length === dependsOn.length)
        throw new Error(`${address} has no depends_on entry ${dependency}`);
      return { ...r, body: { ...r.body, depends_on: kept } };
    }),
  };
}
