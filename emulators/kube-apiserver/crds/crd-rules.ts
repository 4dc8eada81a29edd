import { isObject, type Json } from '../merge-patch';
import type { FieldCause } from '../metadata-rules';
import { metadataOf, type Obj } from '../object-book';
import { throwIfInvalid } from '../generic/object-meta';
import type { ResourceType } from '../generic/resource-type';
import { schemaProblems } from './structural-schema';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const KIND = /^[A-Za-z][A-Za-z0-9]*$/;

const str = (value: Json | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;
const required = (field: string, detail = ''): FieldCause => ({
  field,
  message: `Required value${detail ? `: ${detail}` : ''}`,
  reason: 'FieldValueRequired',
});
const bad = (field: string, value: Json | undefined, why: string): FieldCause => ({
  field,
  message: `Invalid value: ${JSON.stringify(value ?? null)}: ${why}`,
});

/** `spec.names` with the server's defaults (singular: lower-cased kind; listKind: kind + "List"). */
function namesOf(spec: Obj): Obj {
  const names = isObject(spec.names) ? { ...spec.names } : {};
  const kind = str(names.kind);
  if (kind && !names.singular) names.singular = kind.toLowerCase();
  if (kind && !names.listKind) names.listKind = `${kind}List`;
  return names;
}

/** The problems of `spec.names`, `spec.group`, `spec.scope` and the name, as apiextensions checks. */
function identityCauses(name: string, spec: Obj, names: Obj): FieldCause[] {
  const causes: FieldCause[] = [];
  const group = str(spec.group);
  const plural = str(names.plural);
  if (!group) causes.push(required('spec.group'));
  else if (!group.includes('.'))
    causes.push(bad('spec.group', group, 'should be a domain with at least one dot'));
  if (!plural) causes.push(required('spec.names.plural'));
  else if (!DNS_LABEL.test(plural))
    causes.push(
      bad(
        'spec.names.plural',
        plural,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
      ),
    );
  if (!str(names.kind)) causes.push(required('spec.names.kind'));
  else if (!KIND.test(str(names.kind)!))
    causes.push(
      bad(
        'spec.names.kind',
        names.kind,
        'must be a valid kind name (letters and digits, starting with a letter)',
      ),
    );
  for (const [i, short] of (Array.isArray(names.shortNames) ? names.shortNames : []).entries())
    if (typeof short !== 'string' || !DNS_LABEL.test(short))
      causes.push(
        bad(
          `spec.names.shortNames[${i}]`,
          short,
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'",
        ),
      );
  if (group && plural && name !== `${plural}.${group}`)
    causes.push(bad('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  if (spec.scope === undefined) causes.push(required('spec.scope'));
  else if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
    causes.push({
      field: 'spec.scope',
      message: `Unsupported value: ${JSON.stringify(spec.scope)}: supported values: "Cluster", "Namespaced"`,
      reason: 'FieldValueNotSupported',
    });
  return causes;
}

/** The problems of `spec.versions`: names, exactly one storage version, a structural schema each. */
function versionCauses(spec: Obj): FieldCause[] {
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0)
    return [required('spec.versions', 'must have exactly one version marked as storage version')];
  const causes: FieldCause[] = [];
  const storage = versions.filter((v) => isObject(v) && v.storage === true).length;
  if (storage !== 1)
    causes.push(
      bad(
        'spec.versions',
        `${storage} storage versions`,
        'must have exactly one version marked as storage version',
      ),
    );
  versions.forEach((version, i) => {
    const v = isObject(version) ? version : {};
    if (!str(v.name) || !DNS_LABEL.test(str(v.name)!))
      causes.push(
        bad(
          `spec.versions[${i}].name`,
          v.name,
          'must be a valid version name (a lowercase RFC 1123 label)',
        ),
      );
    if (typeof v.served !== 'boolean') causes.push(required(`spec.versions[${i}].served`));
    if (typeof v.storage !== 'boolean') causes.push(required(`spec.versions[${i}].storage`));
    const schema = isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    causes.push(...schemaProblems(schema ?? null, `spec.versions[${i}].schema.openAPIV3Schema`));
  });
  return causes;
}

/** The server-set status: accepted names, stored versions, NamesAccepted and Established. */
function statusOf(names: Obj, spec: Obj, previous: Obj | undefined, now: string): Obj {
  const storage = (spec.versions as Json[]).find((v) => isObject(v) && v.storage === true) as Obj;
  const before = previous && isObject(previous.status) ? previous.status : {};
  const stored = Array.isArray(before.storedVersions)
    ? before.storedVersions.filter((v): v is string => typeof v === 'string')
    : [];
  const since = (type: string): string => {
    const conditions = Array.isArray(before.conditions) ? before.conditions : [];
    const found = conditions.find((c) => isObject(c) && c.type === type);
    return isObject(found) && typeof found.lastTransitionTime === 'string'
      ? found.lastTransitionTime
      : now;
  };
  return {
    conditions: [
      {
        type: 'NamesAccepted',
        status: 'True',
        lastTransitionTime: since('NamesAccepted'),
        reason: 'NoConflicts',
        message: 'no conflicts found',
      },
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: since('Established'),
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      },
    ],
    acceptedNames: names,
    storedVersions: [...new Set([...stored, storage.name as string])],
  };
}

/**
 * Validates and completes a CustomResourceDefinition as apiextensions-apiserver does for the
 * parts served here; the status is the server's (the emulator establishes names at once).
 */
export function normaliseCrd(type: ResourceType, now: () => string) {
  return (object: Obj, previous: Obj | undefined): Obj => {
    const meta = metadataOf(object);
    const spec = isObject(object.spec) ? { ...object.spec } : {};
    const names = namesOf(spec);
    const causes = [
      ...identityCauses(String(meta.name ?? ''), spec, names),
      ...versionCauses(spec),
    ];
    if (previous && isObject(previous.spec)) {
      for (const field of ['scope', 'group'] as const)
        if (previous.spec[field] !== spec[field])
          causes.push(bad(`spec.${field}`, spec[field], 'field is immutable'));
    }
    throwIfInvalid(type, object, causes);
    spec.names = names;
    if (!isObject(spec.conversion)) spec.conversion = { strategy: 'None' };
    return { ...object, spec, status: statusOf(names, spec, previous, now()) };
  };
}
