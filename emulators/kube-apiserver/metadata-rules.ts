import { isObject, type Json } from './merge-patch';

/**
 * The API server's ObjectMeta rules for labels and annotations (k8s.io/apimachinery
 * pkg/api/validation ValidateLabels / ValidateAnnotations and pkg/util/validation), with its
 * messages, to be read against that source:
 * - keys are qualified names: an optional prefix (a DNS-1123 subdomain of at most 253 characters)
 *   and `/`, then a name part of at most 63 characters matching `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`;
 *   annotation keys are checked lower-cased;
 * - label values are empty or at most 63 characters of the same charset;
 * - all annotation keys and values together are at most 256 KiB.
 * Every problem is a cause on the field `metadata.labels` or `metadata.annotations`.
 */

/** One `details.causes[]` entry of a 422 Invalid Status. */
export interface FieldCause {
  readonly field: string;
  readonly message: string;
  readonly reason?: string;
}

const QUALIFIED_NAME_MAX = 63;
const PREFIX_MAX = 253;
const LABEL_VALUE_MAX = 63;
export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const NAME_PART_FORMAT =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const PREFIX_FORMAT =
  "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_VALUE_FORMAT =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** The problems of a qualified name (IsQualifiedName), as the API server words them. */
export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split('/');
  let name: string;
  const problems: string[] = [];
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const [prefix, rest] = parts as [string, string];
    name = rest;
    if (prefix.length === 0) problems.push('prefix part must be non-empty');
    else {
      if (prefix.length > PREFIX_MAX)
        problems.push(`prefix part must be no more than ${PREFIX_MAX} characters`);
      if (!DNS_SUBDOMAIN.test(prefix)) problems.push(PREFIX_FORMAT);
    }
  } else {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else if (name.length > QUALIFIED_NAME_MAX)
    problems.push(`name part must be no more than ${QUALIFIED_NAME_MAX} characters`);
  if (name.length > 0 && !NAME_PART.test(name)) problems.push(NAME_PART_FORMAT);
  return problems;
}

/** The problems of a label value (IsValidLabelValue). */
export function labelValueProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > LABEL_VALUE_MAX)
    problems.push(`must be no more than ${LABEL_VALUE_MAX} characters`);
  if (!LABEL_VALUE.test(value)) problems.push(LABEL_VALUE_FORMAT);
  return problems;
}

const invalid = (field: string, value: string, message: string): FieldCause => ({
  field,
  message: `Invalid value: ${JSON.stringify(value)}: ${message}`,
});

/** The causes for an object's labels and annotations; empty when both are valid. */
export function metadataCauses(metadata: Json | undefined): FieldCause[] {
  const meta = isObject(metadata) ? metadata : {};
  const causes: FieldCause[] = [];
  const labels = isObject(meta.labels) ? meta.labels : {};
  for (const [key, value] of Object.entries(labels)) {
    for (const problem of qualifiedNameProblems(key))
      causes.push(invalid('metadata.labels', key, problem));
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    for (const problem of labelValueProblems(text))
      causes.push(invalid('metadata.labels', text, problem));
  }
  const annotations = isObject(meta.annotations) ? meta.annotations : {};
  let size = 0;
  for (const [key, value] of Object.entries(annotations)) {
    for (const problem of qualifiedNameProblems(key.toLowerCase()))
      causes.push(invalid('metadata.annotations', key, problem));
    size += key.length + (typeof value === 'string' ? value.length : JSON.stringify(value).length);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_B)
    causes.push({
      field: 'metadata.annotations',
      message: `Too long: must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT_B} bytes`,
      reason: 'FieldValueTooLong',
    });
  return causes;
}
