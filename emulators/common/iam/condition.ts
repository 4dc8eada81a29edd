// IAM Conditions, the subset of CEL this project's Terraform writes (modules/pullsecret-tenant-project):
//   resource.type == "cloudresourcemanager.googleapis.com/Project"
//   resource.name.startsWith("projects/NUMBER/secrets/hyperfleet-")
//   resource.name.extract("/secrets/{id}").startsWith("hyperfleet-")
// joined with || and && (and grouped with parentheses). Anything else is refused when the binding
// is loaded, rather than judged some other way than IAM would: an emulator that accepted a
// condition it cannot evaluate faithfully would grant or deny what Google does not.
// Resource attributes: https://cloud.google.com/iam/docs/conditions-resource-attributes
// (resource.type, resource.name; Secret Manager names its resources with the project NUMBER).
// CEL operators: https://cloud.google.com/iam/docs/conditions-overview (&&, ||, ==, startsWith).

/** The resource attributes a condition reads. */
export interface ResourceAttributes {
  /** e.g. `secretmanager.googleapis.com/Secret`, `cloudresourcemanager.googleapis.com/Project`. */
  readonly type: string;
  /** e.g. `projects/123456789012/secrets/hyperfleet-x-pull-secret`. */
  readonly name: string;
}

/** A compiled condition: true when the binding applies to the resource. */
export type Condition = (resource: ResourceAttributes) => boolean;

/** The expression is outside the supported subset, or not CEL at all. */
export class ConditionError extends Error {}

type Token =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'word'; readonly value: string }
  | { readonly kind: 'op'; readonly value: '||' | '&&' | '==' | '(' | ')' | '.' };

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < expression.length) {
    const rest = expression.slice(at);
    const space = /^\s+/.exec(rest);
    if (space) {
      at += space[0].length;
      continue;
    }
    const op = /^(\|\||&&|==|\(|\)|\.)/.exec(rest);
    if (op) {
      tokens.push({ kind: 'op', value: op[1] as '||' | '&&' | '==' | '(' | ')' | '.' });
      at += op[1]!.length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (word) {
      tokens.push({ kind: 'word', value: word[0] });
      at += word[0].length;
      continue;
    }
    const quote = rest[0];
    if (quote === '"' || quote === "'") {
      let value = '';
      let i = 1;
      for (; i < rest.length && rest[i] !== quote; i++) {
        if (rest[i] === '\\') {
          i++;
          if (rest[i] !== quote && rest[i] !== '\\')
            throw new ConditionError(`unsupported escape \\${rest[i] ?? ''} at ${at + i}`);
        }
        value += rest[i];
      }
      if (i >= rest.length) throw new ConditionError(`unterminated string at ${at}`);
      tokens.push({ kind: 'string', value });
      at += i + 1;
      continue;
    }
    throw new ConditionError(`unexpected ${JSON.stringify(rest.slice(0, 10))} at ${at}`);
  }
  return tokens;
}

/** Recursive descent over: or := and ('||' and)*; and := term ('&&' term)*; term := '(' or ')' | test. */
class Parser {
  private at = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  parse(): Condition {
    const condition = this.or();
    if (this.at < this.tokens.length)
      throw new ConditionError(`unexpected ${this.describe(this.tokens[this.at])}`);
    return condition;
  }

  private or(): Condition {
    const parts = [this.and()];
    while (this.takeOp('||')) parts.push(this.and());
    return parts.length === 1 ? parts[0]! : (r) => parts.some((p) => p(r));
  }

  private and(): Condition {
    const parts = [this.term()];
    while (this.takeOp('&&')) parts.push(this.term());
    return parts.length === 1 ? parts[0]! : (r) => parts.every((p) => p(r));
  }

  private term(): Condition {
    if (this.takeOp('(')) {
      const inner = this.or();
      this.expectOp(')');
      return inner;
    }
    this.expectWord('resource');
    this.expectOp('.');
    const attribute = this.expectWord();
    if (attribute === 'type') {
      this.expectOp('==');
      const value = this.expectString();
      return (r) => r.type === value;
    }
    if (attribute === 'name') {
      this.expectOp('.');
      const method = this.expectWord();
      if (method === 'extract') {
        // resource.name.extract("TEMPLATE").startsWith("PREFIX"), as the tenant module writes it.
        this.expectOp('(');
        const template = this.expectString();
        this.expectOp(')');
        this.expectOp('.');
        this.expectWord('startsWith');
        this.expectOp('(');
        const prefix = this.expectString();
        this.expectOp(')');
        const extract = compileExtract(template);
        return (r) => extract(r.name).startsWith(prefix);
      }
      if (method !== 'startsWith')
        throw new ConditionError(
          `resource.name.${method} is not supported (only startsWith and extract(...).startsWith)`,
        );
      this.expectOp('(');
      const prefix = this.expectString();
      this.expectOp(')');
      return (r) => r.name.startsWith(prefix);
    }
    throw new ConditionError(
      `resource.${attribute} is not supported (only resource.type == "..." and resource.name.startsWith("..."))`,
    );
  }

  private takeOp(value: string): boolean {
    const token = this.tokens[this.at];
    if (token?.kind === 'op' && token.value === value) {
      this.at++;
      return true;
    }
    return false;
  }

  private expectOp(value: string): void {
    if (!this.takeOp(value))
      throw new ConditionError(`expected ${value}, found ${this.describe(this.tokens[this.at])}`);
  }

  private expectWord(value?: string): string {
    const token = this.tokens[this.at];
    if (token?.kind !== 'word' || (value !== undefined && token.value !== value))
      throw new ConditionError(
        `expected ${value ?? 'a name'}, found ${this.describe(token)} (supported: resource.type == "...", resource.name.startsWith("..."), ||, &&)`,
      );
    this.at++;
    return token.value;
  }

  private expectString(): string {
    const token = this.tokens[this.at];
    if (token?.kind !== 'string')
      throw new ConditionError(`expected a string literal, found ${this.describe(token)}`);
    this.at++;
    return token.value;
  }

  private describe(token: Token | undefined): string {
    return token === undefined ? 'the end of the expression' : JSON.stringify(token.value);
  }
}

/** Compiles an IAM condition expression; throws ConditionError outside the supported subset. */
export function compileCondition(expression: string): Condition {
  try {
    return new Parser(tokenize(expression)).parse();
  } catch (error) {
    if (!(error instanceof ConditionError)) throw error;
    throw new ConditionError(
      `unsupported IAM condition ${JSON.stringify(expression.slice(0, 200))}: ${error.message}; this emulator evaluates resource.type == "...", resource.name.startsWith("..."), || and && (what Terraform's conditions use)`,
    );
  }
}

/**
 * `extract(template)`: the template is literal text around one {placeholder}; the value is what
 * follows the first occurrence of the text before it, up to the next occurrence of the text after
 * it (or the end of the name when nothing follows the placeholder); "" when the name does not
 * contain the template (https://cloud.google.com/iam/docs/conditions-attribute-reference#extract,
 * e.g. resource.name.extract("projects/{name}/") in Google's GKE conditions, and
 * extract("zones/{name}").startsWith(...) reading to the end).
 */
export function compileExtract(template: string): (name: string) => string {
  const match = /^([^{}]*)\{[A-Za-z_][A-Za-z0-9_]*\}([^{}]*)$/.exec(template);
  if (!match)
    throw new ConditionError(
      `extract template ${JSON.stringify(template)} must hold exactly one {placeholder}`,
    );
  const [, before, after] = match as unknown as [string, string, string];
  return (name) => {
    const start = name.indexOf(before);
    if (start < 0) return '';
    const from = start + before.length;
    if (after === '') return name.slice(from);
    const end = name.indexOf(after, from);
    return end < 0 ? '' : name.slice(from, end);
  };
}
