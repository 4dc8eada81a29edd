// The resource and data source types our Terraform modules use, parsed with the same HCL parser the
// tests use (@cdktf/hcl2json), so a commented-out block does not count.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { parse } = require('@cdktf/hcl2json');

function tfFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('.') ? [] : tfFiles(full);
    return entry.name.endsWith('.tf') ? [full] : [];
  });
}

/** {resources, data_sources}: sorted type names under `dir` that start with `prefix`. */
async function moduleTypes(dir, prefix) {
  const resources = new Set();
  const dataSources = new Set();
  for (const file of tfFiles(dir)) {
    const json = await parse(path.basename(file), fs.readFileSync(file, 'utf8'));
    for (const type of Object.keys(json.resource ?? {})) resources.add(type);
    for (const type of Object.keys(json.data ?? {})) dataSources.add(type);
    // Data sources scoped in check blocks: check "NAME" { data "TYPE" "LABEL" { ... } ... }.
    for (const bodies of Object.values(json.check ?? {}))
      for (const body of bodies)
        for (const type of Object.keys(body.data ?? {})) dataSources.add(type);
  }
  const pick = (set) => [...set].filter((type) => type.startsWith(prefix)).sort();
  return { resources: pick(resources), data_sources: pick(dataSources) };
}

module.exports = { moduleTypes };
