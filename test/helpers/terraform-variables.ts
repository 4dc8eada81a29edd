import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The source text of `variable "NAME" { ... }` in a .tf file, as written: type, default and
 * validation blocks together. Strings (with their escapes) and comments are skipped while matching
 * braces, so a regex such as "{1,63}" in a condition or message does not end the block early.
 */
export function variableBlockText(file: string, name: string): string {
  const text = fs.readFileSync(file, 'utf8');
  const start = text.search(new RegExp(`^variable "${name}" \\{`, 'm'));
  if (start < 0) throw new Error(`${file}: no variable "${name}"`);
  let depth = 0;
  for (let i = text.indexOf('{', start); i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      i = text.indexOf('\n', i);
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  throw new Error(`${file}: variable "${name}" has no closing brace`);
}

/**
 * A throwaway module holding only these variable blocks, copied from `file`: with no resource and
 * no provider, real Terraform evaluates their types and validations offline (TerraformModuleHarness).
 * Returns its directory; the caller removes it.
 */
export function variablesOnlyModule(file: string, names: readonly string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pullsecret-tf-vars-'));
  const blocks = names.map((name) => variableBlockText(file, name));
  fs.writeFileSync(path.join(dir, 'variables.tf'), `${blocks.join('\n\n')}\n`);
  return dir;
}
