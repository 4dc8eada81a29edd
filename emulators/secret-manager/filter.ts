import { status } from '@grpc/grpc-js';
import { GrpcError } from '../common/grpc-error';

/** A predicate over what a Secret Manager list filter can look at. */
export type ListFilter = (item: {
  name: string;
  labels: Record<string, string>;
  state?: string;
}) => boolean;

/**
 * Parses the subset of Secret Manager's list filter syntax the project uses: terms joined by
 * spaces or AND, each `labels.KEY=VALUE`, `labels.KEY:VALUE`, `labels.KEY:*`, `name:TEXT` or
 * `state:STATE`. Anything else is INVALID_ARGUMENT, as the service answers for a bad filter.
 */
export function parseListFilter(filter: string | undefined): ListFilter {
  const terms = (filter ?? '')
    .split(/\s+(?:AND\s+)?/)
    .map((term) => term.trim())
    .filter((term) => term !== '' && term !== 'AND');
  const predicates = terms.map(parseTerm);
  return (item) => predicates.every((predicate) => predicate(item));
}

function parseTerm(term: string): ListFilter {
  const match = /^(labels\.[A-Za-z0-9_-]+|name|state)\s*([:=])\s*"?([^"]*)"?$/.exec(term);
  if (!match) {
    throw new GrpcError(status.INVALID_ARGUMENT, `Invalid filter term [${term}].`);
  }
  const [, field, operator, value] = match as unknown as [string, string, string, string];
  if (field.startsWith('labels.')) {
    const key = field.slice('labels.'.length);
    return ({ labels }) =>
      key in labels &&
      (value === '*' || (operator === '=' ? labels[key] === value : labels[key]!.includes(value)));
  }
  if (field === 'name') return ({ name }) => name.includes(value);
  return ({ state }) => state === value.toUpperCase();
}
