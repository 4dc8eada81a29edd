import fs from 'node:fs';
import path from 'node:path';
import { parse } from '@cdktf/hcl2json';
import { ROOT } from './run-process';

/** A Terraform module: the merged hcl2json of its .tf files. */
export interface TfModule {
  readonly dir: string;
  readonly resources: { type: string; name: string; body: Record<string, unknown> }[];
  /**
   * Its data sources: top-level ones, and those scoped in a `check` block (with `check`, the
   * block's name: Terraform reports their failures as warnings and only the block may reference them).
   */
  readonly data: { type: string; name: string; body: Record<string, unknown>; check?: string }[];
  readonly variables: Record<string, Record<string, unknown>>;
  readonly locals: Record<string, unknown>;
  readonly modules: Record<string, Record<string, unknown>>;
  readonly outputs: Record<string, Record<string, unknown>>;
  /** The providers its terraform blocks declare in required_providers, by local name. */
  readonly requiredProviders: Record<string, Record<string, unknown>>;
  /** Every string value of the module, for reference and security scans. */
  readonly strings: string[];
  /** `removed` blocks: what the module forgets (address) and whether it destroys it. */
  readonly removed: { from: string; destroy: boolean }[];
}

export const TERRAFORM_ROOT = path.join(ROOT, 'terraform');

function tfFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('.') ? [] : tfFiles(full);
    return entry.name.endsWith('.tf') ? [full] : [];
  });
}

const first = (value: unknown) =>
  Array.isArray(value) ? (value[0] as Record<string, unknown>) : (value as Record<string, unknown>);

function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => collectStrings(v, out));
  else if (value && typeof value === 'object')
    Object.entries(value).forEach(([k, v]) => (out.push(k), collectStrings(v, out)));
}

/** terraform/modules/runtime-grants.json: every runtime identity's roles, custom roles and conditions. */
export interface RuntimeGrantsFile {
  readonly conditions: Record<string, { title: string; expression: string }>;
  readonly customRoles: Record<string, string[]>;
  readonly grants: Record<
    string,
    {
      identity: string;
      on: string;
      role?: string;
      customRole?: string;
      condition?: string;
      terraform: string;
    }
  >;
}

export const RUNTIME_GRANTS_FILE = path.join(TERRAFORM_ROOT, 'modules/runtime-grants.json');

export function runtimeGrantsFile(): RuntimeGrantsFile {
  return JSON.parse(fs.readFileSync(RUNTIME_GRANTS_FILE, 'utf8')) as RuntimeGrantsFile;
}

/**
 * An expression that reads runtime-grants.json, replaced by what Terraform evaluates it to (the
 * forms the modules use; a grant or role that does not exist throws, as Terraform would fail), so
 * the tests assert the roles and permissions themselves. Anything else is left as it is.
 */
function resolveRuntimeGrants(value: unknown, grants: RuntimeGrantsFile): unknown {
  if (Array.isArray(value)) return value.map((v) => resolveRuntimeGrants(v, grants));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, resolveRuntimeGrants(v, grants)]),
    );
  if (typeof value !== 'string') return value;
  const grant = (key: string) => {
    const found = grants.grants[key];
    if (!found) throw new Error(`runtime-grants.json has no grant ${key}`);
    return found;
  };
  const role = (name: string | undefined) => {
    const permissions = name === undefined ? undefined : grants.customRoles[name];
    if (!permissions) throw new Error(`runtime-grants.json has no custom role ${String(name)}`);
    return permissions;
  };
  let m = /^\$\{local\.(?:grant|runtime_grants)\["([^"]+)"\]\.role\}$/.exec(value);
  if (m) return grant(m[1]!).role;
  m = /^\$\{local\.custom_role\[local\.grant\["([^"]+)"\]\.customRole\]\}$/.exec(value);
  if (m) return role(grant(m[1]!).customRole);
  m =
    /^\$\{jsondecode\(file\("\$\{path\.module\}\/[./]*runtime-grants\.json"\)\)\.customRoles\.(\w+)\}$/.exec(
      value,
    );
  if (m) return role(m[1]!);
  m = /^\$\{local\.condition\[local\.grant\["([^"]+)"\]\.condition\]\.(title|expression)\}$/.exec(
    value,
  );
  if (m) {
    const condition = grants.conditions[grant(m[1]!).condition ?? ''];
    if (!condition) throw new Error(`grant ${m[1]!} has no condition in runtime-grants.json`);
    return condition[m[2] as 'title' | 'expression'];
  }
  return value;
}

/** Parses every module under terraform/ with @cdktf/hcl2json (the HCL parser Terraform uses, compiled to WebAssembly). */
export async function loadModules(): Promise<TfModule[]> {
  const byDir = new Map<string, string[]>();
  for (const file of tfFiles(TERRAFORM_ROOT))
    byDir.set(path.dirname(file), [...(byDir.get(path.dirname(file)) ?? []), file]);
  const modules: TfModule[] = [];
  const grants = runtimeGrantsFile();
  for (const [dir, files] of byDir) {
    const module: TfModule = {
      dir,
      resources: [],
      data: [],
      variables: {},
      locals: {},
      modules: {},
      outputs: {},
      requiredProviders: {},
      strings: [],
      removed: [],
    };
    for (const file of files) {
      const json = (await parse(path.basename(file), fs.readFileSync(file, 'utf8'))) as Record<
        string,
        Record<string, Record<string, unknown[]>>
      >;
      for (const [type, named] of Object.entries(json.resource ?? {}))
        for (const [name, bodies] of Object.entries(named))
          module.resources.push({ type, name, body: first(bodies) });
      for (const [type, named] of Object.entries(json.data ?? {}))
        for (const [name, bodies] of Object.entries(named))
          module.data.push({ type, name, body: first(bodies) });
      for (const [check, bodies] of Object.entries(json.check ?? {}))
        for (const [type, named] of Object.entries(
          (first(bodies).data as Record<string, Record<string, unknown[]>> | undefined) ?? {},
        ))
          for (const [name, dataBodies] of Object.entries(named))
            module.data.push({ type, name, body: first(dataBodies), check });
      for (const [name, bodies] of Object.entries(json.variable ?? {}))
        module.variables[name] = first(bodies);
      for (const [name, bodies] of Object.entries(json.module ?? {}))
        module.modules[name] = first(bodies);
      for (const [name, bodies] of Object.entries(json.output ?? {}))
        module.outputs[name] = first(bodies);
      for (const block of (json.locals as unknown as Record<string, unknown>[] | undefined) ?? [])
        Object.assign(module.locals, block);
      for (const settings of (json.terraform as unknown as TfBody[] | undefined) ?? [])
        for (const providers of (settings.required_providers as TfBody[] | undefined) ?? [])
          Object.assign(module.requiredProviders, providers);
      // A removed block names a resource that is no longer declared: not a reference.
      const { removed, ...rest } = json as Record<string, unknown>;
      for (const block of (removed as Record<string, unknown>[] | undefined) ?? []) {
        const lifecycle = (block.lifecycle as Record<string, unknown>[] | undefined)?.[0];
        module.removed.push({
          from: String(block.from).replace(/^\$\{|\}$/g, ''),
          destroy: lifecycle?.destroy !== false,
        });
      }
      collectStrings(rest, module.strings);
    }
    modules.push(withGrantsResolved(module, grants));
  }
  return modules;
}

/** The module with its reads of runtime-grants.json evaluated (its `strings` stay as written). */
function withGrantsResolved(module: TfModule, grants: RuntimeGrantsFile): TfModule {
  const r = <T>(value: T) => resolveRuntimeGrants(value, grants) as T;
  return {
    ...module,
    resources: r(module.resources),
    data: r(module.data),
    locals: r(module.locals),
    modules: r(module.modules),
    outputs: r(module.outputs),
  };
}

/** An attribute as Terraform validates it: its type, and required, optional (maybe computed) or read-only (computed alone). */
export interface SchemaAttribute {
  type: 'string' | 'number' | 'bool' | 'list' | 'set' | 'map' | 'object' | 'dynamic';
  required?: true;
  optional?: true;
  computed?: true;
}

/**
 * A provider schema entry: attribute names (all of them) and nested blocks. The snapshots read
 * from provider source (google, google-beta) also say how each attribute is set and, for a nested
 * block, how it nests and how many times it may appear; the CDKTF ones (kubernetes, time, random)
 * list only names.
 */
export interface SchemaBlock {
  attributes: string[];
  blocks: Record<string, SchemaBlock>;
  attribute_details?: Record<string, SchemaAttribute>;
  nesting_mode?: 'list' | 'set' | 'single';
  min_items?: number;
  max_items?: number;
}

/** Where a snapshot read from provider source came from, and the command that regenerates it. */
export interface SnapshotSource {
  repository: string;
  tag: string;
  commit: string;
  generated_by: string;
  types: string;
}

export interface ProviderSchema {
  /** The CDKTF package a name-only snapshot came from, or the source of one read from provider source. */
  source: string | SnapshotSource;
  provider: { name?: string; version?: string };
  resources: Record<string, SchemaBlock>;
  data_sources: Record<string, SchemaBlock>;
  provider_config?: SchemaBlock;
  /** google: the wanted types only google-beta has (a block of such a type must use google-beta). */
  beta_only?: { resources: string[]; data_sources: string[] };
}

/** Every committed provider snapshot (terraform/schema/NAME-provider.schema.json), by provider name. */
export function loadProviderSchemas(): Record<string, ProviderSchema> {
  const dir = path.join(TERRAFORM_ROOT, 'schema');
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((file) => file.endsWith('-provider.schema.json'))
      .map((file) => [
        file.replace('-provider.schema.json', ''),
        JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as ProviderSchema,
      ]),
  );
}

/** Terraform's built-in terraform_data resource (no provider); its provisioners are not checked. */
const BUILTIN_RESOURCES: Record<string, SchemaBlock> = {
  terraform_data: { attributes: ['input', 'triggers_replace'], blocks: {} },
};

/**
 * The schema of a resource or data source type, from `provider` (google-beta for a block with
 * `provider = google-beta`) or else the provider its name prefix names.
 */
export function schemaOf(
  schemas: Record<string, ProviderSchema>,
  kind: 'resources' | 'data_sources',
  type: string,
  provider: string = type.split('_')[0]!,
): SchemaBlock | undefined {
  if (kind === 'resources' && BUILTIN_RESOURCES[type]) return BUILTIN_RESOURCES[type];
  return schemas[provider]?.[kind][type];
}

const META_ARGUMENTS = new Set([
  'count',
  'for_each',
  'depends_on',
  'lifecycle',
  'provider',
  'provisioner',
  'connection',
]);
export const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isReadOnly = (attribute: SchemaAttribute | undefined) =>
  attribute?.computed === true && !attribute.optional && !attribute.required;

/**
 * Every argument and block name (nested, dynamic blocks included) that the schema does not know,
 * and every attribute it knows as read-only (Terraform rejects a value for a computed-only one).
 */
export function unknownNames(
  body: Record<string, unknown>,
  schema: SchemaBlock,
  where: string,
  top = true,
): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (top && META_ARGUMENTS.has(key)) continue;
    if (key === 'dynamic' && isObject(value)) {
      for (const [blockName, definitions] of Object.entries(value)) {
        const block = schema.blocks[blockName];
        if (!block) {
          problems.push(`${where}: unknown dynamic block "${blockName}"`);
          continue;
        }
        for (const definition of (definitions as Record<string, unknown>[]) ?? []) {
          for (const content of (definition.content as Record<string, unknown>[] | undefined) ?? [])
            problems.push(...unknownNames(content, block, `${where}.${blockName}`, false));
        }
      }
      continue;
    }
    const block = schema.blocks[key];
    if (block) {
      for (const item of Array.isArray(value) ? value : [value])
        if (isObject(item)) problems.push(...unknownNames(item, block, `${where}.${key}`, false));
      continue;
    }
    if (!schema.attributes.includes(key))
      problems.push(`${where}: unknown argument or block "${key}"`);
    else if (isReadOnly(schema.attribute_details?.[key]))
      problems.push(`${where}: "${key}" is read-only (set by the provider, not configurable)`);
  }
  return problems;
}

/** References inside `${...}` expressions. */
export function references(strings: readonly string[]) {
  const expressions = strings.filter((s) => s.includes('${'));
  const collect = (pattern: RegExp) =>
    new Set(expressions.flatMap((s) => [...s.matchAll(pattern)].map((m) => m.slice(1).join('.'))));
  return {
    variables: collect(/\bvar\.([A-Za-z_][\w-]*)/g),
    locals: collect(/\blocal\.([A-Za-z_][\w-]*)/g),
    modules: collect(/\bmodule\.([A-Za-z_][\w-]*)\.([A-Za-z_][\w-]*)/g),
    data: collect(/\bdata\.([a-z][a-z0-9_]*)\.([A-Za-z_][\w-]*)/g),
    resources: collect(
      /(?<![.\w])((?:google|kubernetes|time|random)_[a-z0-9_]+|terraform_data)\.([A-Za-z_][\w-]*)/g,
    ),
  };
}

/** A block of a parsed HCL body (hcl2json gives blocks as one-element lists); `{}` when absent. */
export type TfBody = Record<string, unknown>;
export const block = (body: TfBody, name: string): TfBody =>
  (body[name] as TfBody[] | undefined)?.[0] ?? {};

/** The body of resource `type.name` in a module; throws naming the module when it is missing. */
export function resourceBody(mod: TfModule, type: string, name: string): TfBody {
  const found = mod.resources.find((r) => r.type === type && r.name === name);
  if (!found) throw new Error(`${type}.${name} is not in ${mod.dir}`);
  return found.body;
}

/** The parsed module at `dir` (relative to terraform/). */
export function moduleAt(modules: readonly TfModule[], dir: string): TfModule {
  const found = modules.find((m) => m.dir === path.join(TERRAFORM_ROOT, dir));
  if (!found) throw new Error(`no Terraform module at terraform/${dir}`);
  return found;
}
