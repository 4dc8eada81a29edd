import { invalid } from './problem';
import type { StoredCluster } from './model';

type Predicate = (cluster: StoredCluster) => boolean;

/**
 * A subset of HyperFleet's TSL search syntax: terms joined by `and`, each
 * `FIELD = 'v'`, `FIELD != 'v'` or `FIELD in ('a','b')`, where FIELD is `id`, `name`,
 * `labels.KEY` or `status.conditions.TYPE` (the condition's status).
 */
export function parseSearch(search: string | null): Predicate {
  if (!search || search.trim() === '') return () => true;
  const terms = search.split(/\s+and\s+/i).map((t) => t.trim());
  const predicates = terms.map(parseTerm);
  return (cluster) => predicates.every((p) => p(cluster));
}

function parseTerm(term: string): Predicate {
  const match = /^([a-zA-Z_.\-/0-9]+)\s*(=|!=|\s+in\s+|\s+not\s+in\s+)\s*(.+)$/i.exec(term);
  if (!match)
    throw invalid(`Invalid search term: ${term}`, [
      { field: 'search', constraint: 'pattern', message: `cannot parse "${term}"` },
    ]);
  const [, field, rawOp, rawValue] = match as unknown as [string, string, string, string];
  const op = rawOp.trim().toLowerCase().replace(/\s+/g, ' ');
  const values = op.endsWith('in') ? parseList(rawValue, term) : [parseString(rawValue, term)];
  const read = reader(field, term);
  return (cluster) => {
    const value = read(cluster);
    const inList = value !== undefined && values.includes(value);
    return op === '=' || op === 'in' ? inList : !inList;
  };
}

function reader(field: string, term: string): (cluster: StoredCluster) => string | undefined {
  if (field === 'id') return (c) => c.id;
  if (field === 'name') return (c) => c.name;
  if (field.startsWith('labels.')) {
    const key = field.slice('labels.'.length);
    return (c) => c.labels[key];
  }
  if (field.startsWith('status.conditions.')) {
    const type = field.slice('status.conditions.'.length);
    return (c) => c.conditions.find((cond) => cond.type === type)?.status;
  }
  throw invalid(`Unsupported search field in: ${term}`, [
    { field: 'search', constraint: 'enum', message: `unsupported field "${field}"` },
  ]);
}

function parseString(text: string, term: string): string {
  const match = /^'([^']*)'$/.exec(text.trim());
  if (!match)
    throw invalid(`Values must be quoted in: ${term}`, [
      { field: 'search', constraint: 'pattern', message: 'quote values with single quotes' },
    ]);
  return match[1]!;
}

function parseList(text: string, term: string): string[] {
  const match = /^\((.*)\)$/.exec(text.trim());
  if (!match)
    throw invalid(`Expected a list in: ${term}`, [
      { field: 'search', constraint: 'pattern', message: "use in ('a','b')" },
    ]);
  return match[1]!.split(',').map((part) => parseString(part, term));
}
