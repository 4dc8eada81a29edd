import type * as z from 'zod';

/** `a.b[2].c` for a zod path, optionally under a root name (e.g. `data`). */
export function formatIssuePath(path: readonly PropertyKey[], root?: string): string {
  let text = root ?? '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/**
 * One validation problem as `field: what was expected`, so every decode error names the field
 * that was wrong. zod's own messages already say what was expected and what type arrived
 * ("expected number, received string"); values are never echoed, as they may be secret.
 */
export function describeIssue(issue: z.core.$ZodIssue, root?: string): string {
  const where = formatIssuePath(issue.path, root);
  return `${where === '' ? '(top level)' : where}: ${issue.message}`;
}

/** The first problem of a failed parse (the one to fix first), described as above. */
export function describeFirstIssue(error: z.ZodError, root?: string): string {
  const issue = error.issues[0];
  return issue ? describeIssue(issue, root) : `${root ?? '(top level)'}: invalid`;
}
