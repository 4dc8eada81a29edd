import { badRequest } from './status';

type Requirement = (labels: Record<string, string>) => boolean;

/**
 * Parses a Kubernetes label selector: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`,
 * `!k`, joined by commas. Throws BadRequest for anything else, as the API server does.
 */
export function parseLabelSelector(selector: string | null | undefined): Requirement {
  if (!selector || selector.trim() === '') return () => true;
  const requirements = splitTopLevel(selector).map(parseRequirement);
  return (labels) => requirements.every((requirement) => requirement(labels));
}

function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += char;
  }
  parts.push(current.trim());
  return parts.filter((part) => part !== '');
}

const KEY = '([A-Za-z0-9][-A-Za-z0-9_./]*)';

function parseRequirement(text: string): Requirement {
  let match = new RegExp(`^${KEY}\\s*(==|=|!=)\\s*([-A-Za-z0-9_.]*)$`).exec(text);
  if (match) {
    const [, key, op, value] = match as unknown as [string, string, string, string];
    return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  match = new RegExp(`^${KEY}\\s+(in|notin)\\s*\\(([^)]*)\\)$`).exec(text);
  if (match) {
    const [, key, op, list] = match as unknown as [string, string, string, string];
    const values = list.split(',').map((v) => v.trim());
    return op === 'in'
      ? (l) => key in l && values.includes(l[key]!)
      : (l) => !(key in l) || !values.includes(l[key]!);
  }
  match = new RegExp(`^(!?)${KEY}$`).exec(text);
  if (match) {
    const [, not, key] = match as unknown as [string, string, string];
    return not ? (l) => !(key in l) : (l) => key in l;
  }
  throw badRequest(`unable to parse requirement: ${JSON.stringify(text)}`);
}
