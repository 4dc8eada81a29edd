/**
 * A minimal evaluator of Cloud Logging filters (the Logging query language), for testing a
 * log-based metric's filter on sample entries without a project. It implements the subset this
 * repository's filters use, with the documented rules
 * (https://cloud.google.com/logging/docs/view/logging-query-language):
 * - NOT binds tightest, then OR, then AND ("a" OR NOT "b" AND NOT "c" OR "d" is
 *   ("a" OR (NOT "b")) AND ((NOT "c") OR "d")); juxtaposed comparisons are ANDed;
 * - `=` compares strings without regard to case, `:` is "has" (a substring, or `:*` for presence),
 *   `=~` is a regular expression (RE2; case sensitive, unanchored);
 * - `<`, `<=`, `>`, `>=` order numbers numerically, and `severity` by its LogSeverity rank
 *   (`severity>=ERROR` holds for ERROR, CRITICAL, ALERT, EMERGENCY); a value that is neither
 *   throws;
 * - a value list `field=("a" OR "b")` holds when any value does;
 * - a path through a repeated field holds when any element does.
 * Anything else (other operators, functions, quoted path segments) throws, so a filter that
 * outgrows this evaluator fails loudly instead of being judged differently.
 */
type Json = unknown;
type Node =
  | { kind: 'and' | 'or'; left: Node; right: Node }
  | { kind: 'not'; operand: Node }
  | { kind: 'compare'; path: string[]; op: Operator; values: (string | '*')[] };

type Operator = '=' | '=~' | ':' | '<' | '<=' | '>' | '>=';
const OPERATORS: readonly string[] = ['=', '=~', ':', '<', '<=', '>', '>='];

const TOKEN = /\s*(\(|\)|=~|<=|>=|<|>|=|:|"(?:[^"\\]|\\.)*"|[^\s()=:"<>]+)/y;

/** LogSeverity's numeric values (https://cloud.google.com/logging/docs/reference/v2/rest/v2/LogEntry#logseverity). */
const SEVERITY: Readonly<Record<string, number>> = {
  DEFAULT: 0,
  DEBUG: 100,
  INFO: 200,
  NOTICE: 300,
  WARNING: 400,
  ERROR: 500,
  CRITICAL: 600,
  ALERT: 700,
  EMERGENCY: 800,
};

/** The number an ordering compares: a severity's rank on `severity`, else the value itself. */
function ordinal(path: readonly string[], value: string): number {
  const rank =
    path.length === 1 && path[0] === 'severity' ? SEVERITY[value.toUpperCase()] : undefined;
  const number = rank ?? (/^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : undefined);
  if (number === undefined)
    throw new Error(
      `Filter: ${path.join('.')} compares ${JSON.stringify(value)}, neither a number nor a severity`,
    );
  return number;
}

function ordered(op: '<' | '<=' | '>' | '>=', found: number, wanted: number): boolean {
  if (op === '<') return found < wanted;
  if (op === '<=') return found <= wanted;
  if (op === '>') return found > wanted;
  return found >= wanted;
}

function tokenize(filter: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < filter.length) {
    if (/^\s*$/.test(filter.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(filter);
    if (!match)
      throw new Error(`Filter: cannot read from ${JSON.stringify(filter.slice(at, at + 40))}`);
    tokens.push(match[1]!);
  }
  return tokens;
}

const unquote = (token: string): string =>
  token.startsWith('"') ? (JSON.parse(token.replace(/\\([^"\\])/g, '\\\\$1')) as string) : token;

/** Parses a filter into a tree; throws on syntax this evaluator does not know. */
export function parseLoggingFilter(filter: string): Node {
  const tokens = tokenize(filter);
  let i = 0;
  const peek = () => tokens[i];
  const take = (expected?: string) => {
    const token = tokens[i++];
    if (token === undefined || (expected !== undefined && token !== expected))
      throw new Error(`Filter: expected ${expected ?? 'more'} at token ${i}, got ${token}`);
    return token;
  };
  const and = (): Node => {
    let left = or();
    while (peek() !== undefined && peek() !== ')') {
      if (peek() === 'AND') take();
      left = { kind: 'and', left, right: or() };
    }
    return left;
  };
  const or = (): Node => {
    let left = not();
    while (peek() === 'OR') {
      take();
      left = { kind: 'or', left, right: not() };
    }
    return left;
  };
  const not = (): Node => {
    if (peek() === 'NOT') {
      take();
      return { kind: 'not', operand: not() };
    }
    if (peek() === '(') {
      take();
      const inner = and();
      take(')');
      return inner;
    }
    return comparison();
  };
  const value = (): string | '*' => {
    const token = take();
    return token === '*' ? '*' : unquote(token);
  };
  const comparison = (): Node => {
    const path = take();
    if (!/^[A-Za-z@][\w@]*(\.[A-Za-z@][\w@]*)*$/.test(path))
      throw new Error(`Filter: unsupported field path ${path}`);
    const op = take();
    if (!OPERATORS.includes(op)) throw new Error(`Filter: unsupported operator ${op}`);
    const operator = op as Operator;
    if (peek() !== '(')
      return { kind: 'compare', path: path.split('.'), op: operator, values: [value()] };
    take('(');
    const values = [value()];
    while (peek() === 'OR') {
      take();
      values.push(value());
    }
    take(')');
    return { kind: 'compare', path: path.split('.'), op: operator, values };
  };
  const tree = and();
  if (i !== tokens.length) throw new Error(`Filter: unexpected ${tokens[i]} at token ${i}`);
  return tree;
}

/** The values at `path`, every element of a repeated field on the way taken separately. */
function valuesAt(value: Json, path: readonly string[]): Json[] {
  if (Array.isArray(value)) return value.flatMap((element: Json) => valuesAt(element, path));
  if (path.length === 0) return value === undefined || value === null ? [] : [value];
  if (typeof value !== 'object' || value === null) return [];
  return valuesAt((value as Record<string, Json>)[path[0]!], path.slice(1));
}

function holds(node: Node, entry: Json): boolean {
  switch (node.kind) {
    case 'and':
      return holds(node.left, entry) && holds(node.right, entry);
    case 'or':
      return holds(node.left, entry) || holds(node.right, entry);
    case 'not':
      return !holds(node.operand, entry);
    case 'compare': {
      const found = valuesAt(entry, node.path);
      return node.values.some((wanted) => {
        if (wanted === '*') {
          if (node.op !== ':')
            throw new Error('Filter: * is a value of the has operator (:*) only');
          return found.length > 0;
        }
        return found.some((v) => {
          if (typeof v === 'object') return false;
          const text = String(v);
          if (node.op === '<' || node.op === '<=' || node.op === '>' || node.op === '>=')
            return ordered(node.op, ordinal(node.path, text), ordinal(node.path, wanted));
          if (node.op === '=~') return new RegExp(wanted).test(text);
          if (node.op === ':') return text.toLowerCase().includes(wanted.toLowerCase());
          return text.toLowerCase() === wanted.toLowerCase();
        });
      });
    }
  }
}

/** Whether a log entry (as JSON) matches the filter. */
export function matchesLoggingFilter(filter: string, entry: Json): boolean {
  return holds(parseLoggingFilter(filter), entry);
}
