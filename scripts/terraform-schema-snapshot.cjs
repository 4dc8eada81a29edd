#!/usr/bin/env node
// Writes terraform/schema/google-provider.schema.json and google-beta-provider.schema.json: the
// schemas Terraform validates our modules against, taken from the Go source of the provider
// releases the modules pin (hashicorp/google ~> 7.0), so the offline checks in
// test/unit/terraform/ prove what `terraform validate` would, without downloading the providers.
//
// Regenerate (after adding a google_ type to terraform/, or for a newer 7.x release):
//
//   git clone --bare --depth 1 --branch v7.45.0 https://github.com/hashicorp/terraform-provider-google
//   git clone --bare --depth 1 --branch v7.45.0 https://github.com/hashicorp/terraform-provider-google-beta
//   node scripts/terraform-schema-snapshot.cjs --google terraform-provider-google.git \
//     --google-beta terraform-provider-google-beta.git [--ref v7.45.0]
//
// Without --ref, each repository's newest v7.* tag is used. The types snapshotted are every
// google_ resource and data source in terraform/**/*.tf plus EXTRA_TYPES below. A type only the
// beta provider has is listed in the google snapshot's beta_only (the offline checks then require
// `provider = google-beta` on it). Reads the provider's source only; nothing of it is copied but
// the schema facts.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { providerSnapshot } = require('./terraform-schema-snapshot/provider-snapshot.cjs');
const { moduleTypes } = require('./terraform-schema-snapshot/module-types.cjs');

const ROOT = path.resolve(__dirname, '..');
const COMMAND =
  'node scripts/terraform-schema-snapshot.cjs --google <git dir> --google-beta <git dir>';

// Types a change in progress adds to the modules, snapshotted ahead so the checks are ready.
const EXTRA_TYPES = {
  resources: [
    'google_project_service_identity',
    'google_organization_iam_custom_role',
    'google_folder_iam_member',
    'google_organization_iam_member',
    'google_project_iam_member',
    'google_kms_crypto_key_iam_member',
    'google_secret_manager_secret_iam_member',
    'google_artifact_registry_repository_iam_member',
    'google_storage_bucket_iam_member',
    'google_pubsub_topic_iam_member',
    'google_project_iam_custom_role',
  ],
  data_sources: [
    'google_artifact_registry_docker_image',
    'google_artifact_registry_docker_images',
    'google_secret_manager_secret',
    'google_secret_manager_secret_version',
    'google_secret_manager_secrets',
    'google_pubsub_topic',
    'google_project',
    'google_client_config',
    'google_folder',
    'google_organization',
    'google_storage_project_service_account',
    'google_iam_workload_identity_pool',
  ],
};

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (!['--google', '--google-beta', '--ref'].includes(flag) || !value) usage();
    args[flag.slice(2)] = value;
  }
  if (!args.google || !args['google-beta']) usage();
  return args;
}

function usage() {
  console.error(`usage: ${COMMAND} [--ref v7.x.y]`);
  process.exit(2);
}

/** The newest v7.* tag of a repository. */
function newestTag(gitDir) {
  const tags = execFileSync('git', ['-C', gitDir, 'tag', '--list', 'v7.*', '--sort=-v:refname'], {
    encoding: 'utf8',
  });
  const tag = tags.split('\n').find((t) => /^v7\.\d+\.\d+$/.test(t));
  if (!tag) throw new Error(`${gitDir} has no v7.x.y tag`);
  return tag;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const fromModules = await moduleTypes(path.join(ROOT, 'terraform'), 'google_');
  const wanted = {
    resources: [...new Set([...fromModules.resources, ...EXTRA_TYPES.resources])].sort(),
    data_sources: [...new Set([...fromModules.data_sources, ...EXTRA_TYPES.data_sources])].sort(),
  };
  const results = {};
  for (const name of ['google', 'google-beta']) {
    const ref = args.ref ?? newestTag(args[name]);
    results[name] = providerSnapshot({ gitDir: args[name], ref, name, wanted });
    for (const note of results[name].skipped) console.error(`${name}: not evaluated: ${note}`);
  }
  const [ga, beta] = [results.google, results['google-beta']];
  const missing = ['resources', 'data_sources'].flatMap((kind) =>
    beta.absent[kind].filter((type) => ga.absent[kind].includes(type)).map((t) => `${kind} ${t}`),
  );
  if (missing.length > 0) throw new Error(`in neither provider: ${missing.join(', ')}`);
  ga.snapshot.beta_only = ga.absent;
  for (const [name, { snapshot }] of Object.entries(results)) {
    snapshot.source = {
      ...snapshot.source,
      generated_by: COMMAND,
      types:
        'every google_ resource and data source in terraform/**/*.tf, plus EXTRA_TYPES in the script',
    };
    const file = path.join(ROOT, 'terraform/schema', `${name}-provider.schema.json`);
    fs.writeFileSync(file, `${JSON.stringify(snapshot, null, 2)}\n`);
    console.error(
      `${path.relative(ROOT, file)}: ${name} ${snapshot.provider.version} (${snapshot.source.commit}), ` +
        `${Object.keys(snapshot.resources).length} resources, ${Object.keys(snapshot.data_sources).length} data sources`,
    );
  }
  for (const kind of ['resources', 'data_sources'])
    for (const type of ga.absent[kind]) console.error(`beta only: ${kind} ${type}`);
}

main().catch((error) => {
  console.error(error.stack ?? error);
  process.exit(1);
});
