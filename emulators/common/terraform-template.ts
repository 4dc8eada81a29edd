/** A value a template variable can hold: what this project's templates pass to templatefile(). */
export type TemplateValue = string | boolean | readonly string[];

type Token =
  | { readonly kind: 'text'; text: string }
  | { readonly kind: 'interpolation'; readonly name: string }
  | { readonly kind: 'directive'; readonly words: readonly string[] };

// `${name}`, `%{ if name }`, `%{ for x in name }`, `%{ endif }`, `%{ endfor }`, each with optional
// `~` strip markers. Anything richer (function calls, operators, `else`) is refused by name, so a
// template that outgrows this renderer fails loudly instead of rendering differently.
const MARKER = /(?<!\$)\$\{(~?)\s*([^}]*?)\s*(~?)\}|(?<!%)%\{(~?)\s*([^}]*?)\s*(~?)\}/g;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Renders a Terraform template (the templatefile() language) for the subset this project's
 * templates use, with Terraform's rules: `~` strips all whitespace on its side (newlines included),
 * `$${` and `%%{` are literal. The local stack renders the same files Terraform renders for a real
 * cluster; a test compares the two outputs so the subset cannot drift from Terraform's semantics.
 */
export function renderTerraformTemplate(
  template: string,
  variables: Readonly<Record<string, TemplateValue>>,
): string {
  const tokens = tokenize(template);
  const [output, rest] = evaluate(tokens, 0, variables, undefined);
  if (rest !== tokens.length) throw new Error('Template: unexpected end directive');
  return output;
}

function tokenize(template: string): Token[] {
  const tokens: Token[] = [];
  let last = 0;
  let stripNext = false;
  for (const match of template.matchAll(MARKER)) {
    let text = template.slice(last, match.index);
    if (stripNext) text = text.trimStart();
    const interpolation = match[2] !== undefined;
    const [before, body, after] = interpolation
      ? [match[1], match[2]!, match[3]]
      : [match[4], match[5]!, match[6]];
    if (before === '~') text = text.trimEnd();
    tokens.push({ kind: 'text', text });
    if (interpolation) {
      if (!IDENTIFIER.test(body))
        throw new Error(`Template: unsupported interpolation "\${${body}}" (only plain variables)`);
      tokens.push({ kind: 'interpolation', name: body });
    } else tokens.push({ kind: 'directive', words: body.split(/\s+/) });
    stripNext = after === '~';
    last = (match.index ?? 0) + match[0].length;
  }
  const tail = template.slice(last);
  tokens.push({ kind: 'text', text: stripNext ? tail.trimStart() : tail });
  return tokens.map((token) =>
    token.kind === 'text'
      ? { kind: 'text', text: token.text.replace(/\$\$\{/g, '${').replace(/%%\{/g, '%{') }
      : token,
  );
}

function lookup(variables: Readonly<Record<string, TemplateValue>>, name: string): TemplateValue {
  const value = variables[name];
  if (value === undefined) throw new Error(`Template: variable "${name}" is not given`);
  return value;
}

/** Evaluates tokens from `start` until `end` (endif/endfor) or the end; returns text and position. */
function evaluate(
  tokens: readonly Token[],
  start: number,
  variables: Readonly<Record<string, TemplateValue>>,
  end: 'endif' | 'endfor' | undefined,
): [string, number] {
  let output = '';
  for (let i = start; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'text') output += token.text;
    else if (token.kind === 'interpolation') {
      const value = lookup(variables, token.name);
      if (typeof value !== 'string' && typeof value !== 'boolean')
        throw new Error(`Template: "${token.name}" is a list; it cannot be interpolated`);
      output += String(value);
    } else {
      const [keyword, ...args] = token.words;
      if (keyword === end) return [output, i];
      if (keyword === 'if' && args.length === 1) {
        const condition = lookup(variables, args[0]!);
        if (typeof condition !== 'boolean')
          throw new Error(`Template: "${args[0]}" is not a boolean`);
        const [body, close] = evaluate(tokens, i + 1, variables, 'endif');
        if (condition) output += body;
        i = close;
      } else if (keyword === 'for' && args.length === 3 && args[1] === 'in') {
        const items = lookup(variables, args[2]!);
        if (!Array.isArray(items)) throw new Error(`Template: "${args[2]}" is not a list`);
        let close = findClose(tokens, i + 1);
        for (const item of items as readonly string[]) {
          const [body, at] = evaluate(tokens, i + 1, { ...variables, [args[0]!]: item }, 'endfor');
          output += body;
          close = at;
        }
        i = close;
      } else throw new Error(`Template: unsupported directive "%{ ${token.words.join(' ')} }"`);
    }
  }
  if (end !== undefined) throw new Error(`Template: missing %{ ${end} }`);
  return [output, tokens.length];
}

/** The index of the `endfor` closing the loop whose body starts at `start` (for empty lists). */
function findClose(tokens: readonly Token[], start: number): number {
  let depth = 0;
  for (let i = start; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind !== 'directive') continue;
    const keyword = token.words[0];
    if (keyword === 'if' || keyword === 'for') depth++;
    else if (keyword === 'endif' || keyword === 'endfor') {
      if (depth === 0) return i;
      depth--;
    }
  }
  throw new Error('Template: missing %{ endfor }');
}
