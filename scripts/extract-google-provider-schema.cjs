#!/usr/bin/env node
// Extracts a schema snapshot of a Terraform provider from its generated CDKTF bindings
// (@cdktf/provider-kubernetes, -time, -random): for every resource and data source, its argument
// names and its nested block names (recursively). The snapshots let CI check terraform/ offline,
// where the providers themselves cannot be downloaded. Run by hand, once per provider (the
// bindings are not dependencies of the project):
//
//   npm pack @cdktf/provider-kubernetes@12.1.1 && tar xzf cdktf-provider-kubernetes-12.1.1.tgz
//   node scripts/extract-google-provider-schema.cjs package > terraform/schema/kubernetes-provider.schema.json
//   (likewise @cdktf/provider-time@11.0.1 -> time-provider.schema.json,
//    @cdktf/provider-random@12.0.1 -> random-provider.schema.json)
//
// The google and google-beta snapshots no longer come from here: @cdktf/provider-google stops at
// provider 6.50 and the modules pin 7.x, so scripts/terraform-schema-snapshot.cjs reads them from
// the provider's Go source instead.
//
// The bindings state which provider version they were generated from (package.json `cdktf`).
const fs = require('node:fs');
const path = require('node:path');

const root = process.argv[2];
if (!root) {
  console.error(
    'usage: extract-google-provider-schema.cjs <unpacked @cdktf/provider-google folder>',
  );
  process.exit(2);
}
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const lib = path.join(root, 'lib');

/** The body of the object literal returned after `marker` (a function or method header). */
function returnedObject(source, marker) {
  const start = source.indexOf(marker);
  if (start < 0) return undefined;
  const open = source.indexOf('return {', start);
  if (open < 0) return undefined;
  let depth = 0;
  for (let i = open + 'return '.length; i < source.length; i++) {
    if (source[i] === '{') depth++;
    else if (source[i] === '}' && --depth === 0) return source.slice(open + 'return {'.length, i);
  }
  return undefined;
}

/** Attributes and blocks of one object: `key: cdktf.x(...)` is an attribute, `key: otherToTerraform(...)` a block. */
function schemaOf(source, body, seen = new Set()) {
  const schema = { attributes: [], blocks: {} };
  for (const line of body.split('\n')) {
    const match = /^\s*([a-z0-9_]+): (.*)$/.exec(line);
    if (!match) continue;
    const [, key, expression] = match;
    const block = /(?:^|\()([A-Za-z0-9_]+)ToTerraform[,)(]/.exec(expression);
    if (block && !expression.startsWith('cdktf.')) {
      const fn = block[1];
      if (seen.has(fn)) {
        schema.blocks[key] = { attributes: [], blocks: {}, recursive: true };
        continue;
      }
      const nested = returnedObject(source, `function ${fn}ToTerraform(struct)`);
      schema.blocks[key] =
        nested === undefined
          ? { attributes: [], blocks: {} }
          : schemaOf(source, nested, new Set([...seen, fn]));
    } else if (block && expression.startsWith('cdktf.listMapper(')) {
      const fn = block[1];
      const nested = returnedObject(source, `function ${fn}ToTerraform(struct)`);
      schema.blocks[key] =
        nested === undefined
          ? { attributes: [], blocks: {} }
          : schemaOf(source, nested, new Set([...seen, fn]));
    } else {
      schema.attributes.push(key);
    }
  }
  schema.attributes.sort();
  return schema;
}

const out = {
  source: `${pkg.name}@${pkg.version}`,
  provider: pkg.cdktf?.provider ?? {},
  resources: {},
  data_sources: {},
  provider_config: undefined,
};
for (const dir of fs.readdirSync(lib).sort()) {
  const file = path.join(lib, dir, 'index.js');
  if (!fs.existsSync(file)) continue;
  const source = fs.readFileSync(file, 'utf8');
  const type = /\.tfResourceType = "([a-z0-9_]+)";/.exec(source)?.[1];
  const body = returnedObject(source, 'synthesizeAttributes() {');
  if (!type || body === undefined) continue;
  const schema = schemaOf(source, body);
  if (dir === 'provider') out.provider_config = schema;
  else if (dir.startsWith('data-')) out.data_sources[type] = schema;
  else out.resources[type] = schema;
}
process.stdout.write(`${JSON.stringify(out)}\n`);
console.error(
  `extracted ${Object.keys(out.resources).length} resources and ${Object.keys(out.data_sources).length} data sources from ${out.source} (${out.provider.name ?? 'provider'} ${out.provider.version ?? '?'})`,
);
