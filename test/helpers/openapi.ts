import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import YAML from 'yaml';
import { ROOT } from './run-process';

/** Where the official spec is read from: HYPERFLEET_OPENAPI_SPEC (a newer upstream copy), else the vendored one. */
export function specPath(): string {
  const candidates = [
    process.env.HYPERFLEET_OPENAPI_SPEC,
    path.join(ROOT, 'test/fixtures/contracts/hyperfleet-api-core.openapi.yaml'),
  ].filter((p): p is string => typeof p === 'string' && p !== '');
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found)
    throw new Error(
      `HyperFleet OpenAPI spec not found; set HYPERFLEET_OPENAPI_SPEC (looked in ${candidates.join(', ')})`,
    );
  return found;
}

/** Validates values against `#/components/schemas/<name>` of the spec with Ajv (JSON Schema). */
export function openApiValidator(file = specPath()): (schema: string, value: unknown) => string[] {
  const spec = YAML.parse(fs.readFileSync(file, 'utf8')) as object;
  // OpenAPI 3.0 schemas are JSON Schema plus a few keywords (example, format int32) Ajv is told about.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addSchema(spec, 'openapi');
  return (schema, value) => {
    const validate = ajv.getSchema(`openapi#/components/schemas/${schema}`);
    if (!validate) throw new Error(`schema ${schema} not in the spec`);
    return validate(value)
      ? []
      : (validate.errors ?? []).map(
          (e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? ''}`,
        );
  };
}
