// The snapshot of one provider (google or google-beta) at one git ref, for the given types.
'use strict';

const { GoSource } = require('./go-source.cjs');
const { Evaluator } = require('./go-evaluate.cjs');
const { schemaHelpers } = require('./schema-helpers.cjs');
const { findRegistrations, providerRoot } = require('./registry.cjs');
const { sdkBlock, frameworkBlock } = require('./core-schema.cjs');
const { force } = require('./go-values.cjs');

/** The arguments of the `provider "google"` block: the Schema of Provider() in the provider package. */
function providerConfig(source, evaluator) {
  const pkg = source.package(`${providerRoot(source)}/provider`);
  const provider = force(evaluator.apply(evaluator.member(pkg, 'Provider'), []));
  return sdkBlock(provider, evaluator, 'provider', false);
}

/**
 * {snapshot, absent, skipped}: `absent` lists the wanted types the provider does not have (by kind),
 * `skipped` the control flow the evaluator did not run in functions that built these schemas (for
 * review: a schema field set inside an if would be missing).
 */
function providerSnapshot({ gitDir, ref, name, wanted }) {
  const source = new GoSource(gitDir, ref);
  const evaluator = new Evaluator(source, {});
  evaluator.helpers = schemaHelpers(evaluator);
  const registrations = findRegistrations(source, evaluator, [
    ...new Set([...wanted.resources, ...wanted.data_sources]),
  ]);
  const snapshot = {
    source: { repository: `https://${source.modulePath}`, tag: ref, commit: source.commit },
    provider: { name: `registry.terraform.io/hashicorp/${name}`, version: ref.replace(/^v/, '') },
    resources: {},
    data_sources: {},
  };
  const absent = { resources: [], data_sources: [] };
  for (const kind of ['resources', 'data_sources']) {
    for (const type of [...wanted[kind]].sort()) {
      const registration = registrations[type]?.find((r) => r.kind === kind);
      if (!registration) {
        absent[kind].push(type);
        continue;
      }
      const where = `${name} ${kind === 'resources' ? 'resource' : 'data source'} ${type}`;
      try {
        const schema = force(registration.schema());
        snapshot[kind][type] = registration.framework
          ? frameworkBlock(schema, type)
          : sdkBlock(schema, evaluator, type, true);
      } catch (error) {
        error.message = `${where} (${registration.file}): ${error.message}`;
        throw error;
      }
    }
  }
  snapshot.provider_config = providerConfig(source, evaluator);
  return { snapshot, absent, skipped: [...evaluator.skipped].sort() };
}

module.exports = { providerSnapshot };
