// A parser for the part of Go that builds Terraform schemas: top-level declarations (indexed, their
// bodies parsed only when needed), expressions of every form, and the statements of a function
// body. Of control flow, only if and for-range are kept (schema constructors use them to apply
// options); switch, select and other loops are parsed only far enough to skip them.
'use strict';

const PRECEDENCE = {
  '||': 1,
  '&&': 2,
  '==': 3,
  '!=': 3,
  '<': 3,
  '<=': 3,
  '>': 3,
  '>=': 3,
  '+': 4,
  '-': 4,
  '|': 4,
  '^': 4,
  '*': 5,
  '/': 5,
  '%': 5,
  '<<': 5,
  '>>': 5,
  '&': 5,
  '&^': 5,
};
const UNARY = new Set(['+', '-', '!', '^', '*', '&', '<-']);
const ASSIGN = new Set([
  ':=',
  '=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '<<=',
  '>>=',
  '&^=',
]);
const OPEN = { '(': ')', '[': ']', '{': '}' };

class Parser {
  constructor(tokens, file, pos = 0, end = tokens.length) {
    this.tokens = tokens;
    this.file = file;
    this.pos = pos;
    this.end = end;
  }

  peek(offset = 0) {
    const index = this.pos + offset;
    return index < this.end ? this.tokens[index] : { kind: 'eof', value: '', line: -1 };
  }

  /** The current token is the operator or keyword `value`. */
  is(value, offset = 0) {
    const token = this.peek(offset);
    return (token.kind === 'op' || token.kind === 'keyword') && token.value === value;
  }

  next() {
    return this.tokens[this.pos++];
  }

  fail(message) {
    const token = this.peek();
    throw new Error(`${this.file}:${token.line}: ${message} (at ${JSON.stringify(token.value)})`);
  }

  expect(value) {
    if (!this.is(value)) this.fail(`expected ${value}`);
    return this.next();
  }

  ident() {
    if (this.peek().kind !== 'ident') this.fail('expected an identifier');
    return this.next().value;
  }

  /** Moves past a bracketed group starting at the current `(`, `[` or `{`. */
  skipBalanced() {
    const stack = [];
    do {
      const token = this.next();
      if (!token) this.fail('unbalanced brackets');
      if (token.kind === 'op' && OPEN[token.value]) stack.push(OPEN[token.value]);
      else if (token.kind === 'op' && token.value === stack[stack.length - 1]) stack.pop();
    } while (stack.length > 0);
  }

  /** Moves to the `;` (or the end) that ends the current statement, outside brackets. */
  skipStatement() {
    while (this.pos < this.end && !this.is(';')) {
      if (this.peek().kind === 'op' && OPEN[this.peek().value]) this.skipBalanced();
      else this.next();
    }
  }

  /** Tokens of a bracketed list split at its top-level commas (for parameter lists). */
  groups() {
    this.expect('(');
    const groups = [[]];
    while (!this.is(')')) {
      if (this.is(',')) {
        this.next();
        groups.push([]);
      } else if (this.peek().kind === 'op' && OPEN[this.peek().value]) {
        const start = this.pos;
        this.skipBalanced();
        groups[groups.length - 1].push(...this.tokens.slice(start, this.pos));
      } else groups[groups.length - 1].push(this.next());
    }
    this.next();
    return groups.filter((group) => group.length > 0);
  }

  /** Parameter names (null when unnamed) and whether the last one is variadic. */
  params() {
    const groups = this.groups();
    const isName = (group) =>
      group[0].kind === 'ident' && group.length > 1 && group[1].value !== '.';
    const named = groups.some(isName);
    return groups.map((group) => ({
      name: named ? group[0].value : null,
      variadic: group.some((token) => token.kind === 'op' && token.value === '...'),
    }));
  }

  startsType() {
    const token = this.peek();
    if (token.kind === 'ident') return true;
    return ['*', '[', 'map', 'chan', 'func', 'struct', 'interface', '(', '<-'].includes(
      token.value,
    );
  }

  /** Parameters and skipped results of a function signature. */
  signature() {
    const params = this.params();
    if (this.is('(')) this.skipBalanced();
    else if (this.startsType() && !this.is('{')) this.type();
    return params;
  }

  type() {
    if (this.is('*')) return (this.next(), { kind: 'pointer', elem: this.type() });
    if (this.is('[')) {
      this.next();
      if (this.is(']')) return (this.next(), { kind: 'slice', elem: this.type() });
      if (this.is('...')) this.next();
      else this.expression();
      this.expect(']');
      return { kind: 'slice', elem: this.type() };
    }
    if (this.is('map')) {
      this.next();
      this.expect('[');
      const key = this.type();
      this.expect(']');
      return { kind: 'map', key, elem: this.type() };
    }
    if (this.is('<-')) this.next();
    if (this.is('chan')) {
      this.next();
      if (this.is('<-')) this.next();
      return { kind: 'chan', elem: this.type() };
    }
    if (this.is('func')) return (this.next(), this.signature(), { kind: 'func' });
    if (this.is('struct') || this.is('interface')) {
      const kind = this.next().value;
      this.skipBalanced();
      return { kind };
    }
    if (this.is('(')) {
      this.next();
      const inner = this.type();
      this.expect(')');
      return inner;
    }
    const name = this.ident();
    if (this.is('.')) return (this.next(), { kind: 'name', pkg: name, name: this.ident() });
    return { kind: 'name', name };
  }

  expressionList(noLiteral = false) {
    const list = [this.expression(noLiteral)];
    while (this.is(',')) {
      this.next();
      list.push(this.expression(noLiteral));
    }
    return list;
  }

  /** `noLiteral`: in if/for/switch headers, `Name{` starts the block, not a composite literal. */
  expression(noLiteral = false, precedence = 1) {
    let left = this.unary(noLiteral);
    for (;;) {
      const token = this.peek();
      const p = token.kind === 'op' ? PRECEDENCE[token.value] : undefined;
      if (p === undefined || p < precedence) return left;
      this.next();
      left = { kind: 'binary', op: token.value, x: left, y: this.expression(noLiteral, p + 1) };
    }
  }

  unary(noLiteral) {
    const token = this.peek();
    if (token.kind === 'op' && UNARY.has(token.value)) {
      this.next();
      return { kind: 'unary', op: token.value, x: this.unary(noLiteral) };
    }
    if (this.is('range')) return (this.next(), { kind: 'range', x: this.unary(noLiteral) });
    return this.primary(noLiteral);
  }

  primary(noLiteral) {
    let x = this.operand();
    for (;;) {
      if (this.is('.')) {
        this.next();
        if (this.is('(')) {
          this.next();
          if (this.is('type')) this.next();
          else this.type();
          this.expect(')');
          x = { kind: 'assert', x };
        } else
          x = { kind: 'selector', x, name: this.ident(), line: this.tokens[this.pos - 1].line };
      } else if (this.is('(')) {
        this.next();
        const args = [];
        let spread = false;
        while (!this.is(')')) {
          args.push(this.expression());
          if (this.is('...')) {
            this.next();
            spread = true;
          }
          if (!this.is(',')) break;
          this.next();
        }
        this.expect(')');
        x = { kind: 'call', fn: x, args, spread, line: this.tokens[this.pos - 1].line };
      } else if (this.is('[')) {
        this.next();
        const index = this.is(':') ? null : this.expression();
        let isSlice = false;
        while (this.is(':')) {
          this.next();
          isSlice = true;
          if (!this.is(']') && !this.is(':')) this.expression();
        }
        this.expect(']');
        x = isSlice ? { kind: 'sliceExpr', x } : { kind: 'index', x, index };
      } else if (this.is('{') && !noLiteral && isTypeName(x)) {
        x = this.literal(typeFromName(x));
      } else return x;
    }
  }

  operand() {
    const token = this.peek();
    if (['int', 'float', 'imag', 'rune'].includes(token.kind))
      return (this.next(), { kind: 'number', value: token.value });
    if (token.kind === 'string') return (this.next(), { kind: 'string', value: token.value });
    if (token.kind === 'ident')
      return (this.next(), { kind: 'ident', name: token.value, line: token.line });
    if (this.is('(')) {
      this.next();
      const inner = this.expression();
      this.expect(')');
      return { kind: 'paren', x: inner };
    }
    if (this.is('func')) {
      this.next();
      const params = this.signature();
      if (!this.is('{')) return { kind: 'type', type: { kind: 'func' } };
      const bodyStart = this.pos + 1;
      this.skipBalanced();
      return { kind: 'funcLiteral', params, bodyStart, bodyEnd: this.pos - 1, tokens: this.tokens };
    }
    if (['[', 'map', 'struct', 'interface', 'chan'].some((v) => this.is(v))) {
      const type = this.type();
      // A literal type ([]T, map[K]V) may start a composite literal even in a header.
      return this.is('{') ? this.literal(type) : { kind: 'type', type };
    }
    return this.fail('expected an expression');
  }

  /** A composite literal body; `type` is null when elided (`{...}` inside a map or slice literal). */
  literal(type) {
    this.expect('{');
    const elements = [];
    while (!this.is('}')) {
      const first = this.element();
      if (this.is(':')) {
        this.next();
        elements.push({ key: first, value: this.element() });
      } else elements.push({ key: null, value: first });
      if (!this.is(',')) break;
      this.next();
    }
    this.expect('}');
    return { kind: 'composite', type, elements };
  }

  element() {
    return this.is('{') ? this.literal(null) : this.expression();
  }

  simpleStatement(noLiteral = false) {
    const line = this.peek().line;
    const lhs = this.expressionList(noLiteral);
    const token = this.peek();
    if (token.kind === 'op' && ASSIGN.has(token.value)) {
      this.next();
      return { kind: 'assign', op: token.value, lhs, rhs: this.expressionList(noLiteral), line };
    }
    if (this.is('++') || this.is('--'))
      return (this.next(), { kind: 'skipped', what: 'inc/dec', line });
    return { kind: 'expression', x: lhs[0], line };
  }

  /** The statements of the `{...}` block at the current token. */
  block() {
    const start = this.pos + 1;
    this.skipBalanced();
    return new Parser(this.tokens, this.file, start, this.pos - 1).statements();
  }

  /** {kind: 'if', init, condition, then, otherwise}: both branches parsed, run by condition. */
  ifStatement() {
    const line = this.expect('if').line;
    let init = null;
    let header = this.simpleStatement(true);
    if (this.is(';')) {
      this.next();
      init = header;
      header = { kind: 'expression', x: this.expression(true) };
    }
    if (header.kind !== 'expression') this.fail('expected an if condition');
    const then = this.block();
    let otherwise = [];
    if (this.is('else')) {
      this.next();
      otherwise = this.is('if') ? [this.ifStatement()] : this.block();
    }
    return { kind: 'if', init, condition: header.x, then, otherwise, line };
  }

  /** {kind: 'range', lhs, define, x, body} for `for k, v := range x`; other loops are skipped. */
  forStatement() {
    const line = this.expect('for').line;
    let header = null;
    if (!this.is('{')) {
      if (!this.is(';')) header = this.simpleStatement(true);
      if (this.is(';')) {
        header = null;
        this.next();
        if (!this.is(';')) this.expression(true);
        this.expect(';');
        if (!this.is('{')) this.simpleStatement(true);
      }
    }
    const body = this.block();
    if (header?.kind === 'assign' && header.rhs[0]?.kind === 'range')
      return {
        kind: 'range',
        lhs: header.lhs,
        define: header.op === ':=',
        x: header.rhs[0].x,
        body,
        line,
      };
    if (header?.kind === 'expression' && header.x.kind === 'range')
      return { kind: 'range', lhs: [], define: false, x: header.x.x, body, line };
    return { kind: 'skipped', what: 'for', line };
  }

  skipSwitch() {
    this.next();
    if (!this.is('{')) {
      if (!this.is(';')) this.simpleStatement(true);
      if (this.is(';')) {
        this.next();
        if (!this.is('{')) this.simpleStatement(true);
      }
    }
    this.skipBalanced();
  }

  /** The statements of a function body; switch, select and non-range loops become {kind: 'skipped'}. */
  statements() {
    const statements = [];
    while (this.pos < this.end) {
      const statement = this.statement();
      if (statement) statements.push(statement);
    }
    return statements;
  }

  /** One statement, or null for an empty one or a label. */
  statement() {
    const token = this.peek();
    const line = token.line;
    const skipped = (what) => ({ kind: 'skipped', what, line });
    if (this.is(';') || (token.kind === 'ident' && this.is(':', 1))) {
      this.next();
      if (this.is(':')) this.next();
      return null;
    }
    if (this.is('return')) {
      this.next();
      const values = this.is(';') || this.pos >= this.end ? [] : this.expressionList();
      return { kind: 'return', values, line };
    }
    if (this.is('if')) return this.ifStatement();
    if (this.is('for')) return this.forStatement();
    if (this.is('switch') || this.is('select')) {
      this.skipSwitch();
      return skipped(token.value);
    }
    if (this.is('var') && !this.is('(', 1)) return this.varStatement();
    if (this.is('{')) {
      this.skipBalanced();
      return skipped('block');
    }
    if (token.kind === 'keyword' && token.value !== 'func') {
      this.skipStatement();
      return skipped(token.value);
    }
    return this.simpleStatement();
  }

  varStatement() {
    const line = this.expect('var').line;
    const names = [this.ident()];
    while (this.is(',')) {
      this.next();
      names.push(this.ident());
    }
    if (!this.is('=') && !this.is(';')) this.type();
    let values = [];
    if (this.is('=')) {
      this.next();
      values = this.expressionList();
    }
    return { kind: 'var', names, values, line };
  }
}

const isTypeName = (x) =>
  x.kind === 'ident' || x.kind === 'type' || (x.kind === 'selector' && x.x.kind === 'ident');

function typeFromName(x) {
  if (x.kind === 'type') return x.type;
  if (x.kind === 'ident') return { kind: 'name', name: x.name };
  return { kind: 'name', pkg: x.x.name, name: x.name };
}

/**
 * The declarations of a Go file: package name, imports (alias -> path), functions and methods
 * (with the token range of their body), and package-level vars and consts (with the token range
 * of their value expression).
 */
function indexFile(tokens, file) {
  const p = new Parser(tokens, file);
  const index = { file, tokens, packageName: '', imports: new Map(), funcs: [], values: [] };
  const importSpec = () => {
    let alias = null;
    if (p.peek().kind === 'ident' || p.is('.')) alias = p.next().value;
    const importPath = p.next().value;
    index.imports.set(alias ?? defaultImportName(importPath), importPath);
  };
  const valueSpec = (kind) => {
    const names = [p.ident()];
    while (p.is(',')) {
      p.next();
      names.push(p.ident());
    }
    if (!p.is('=') && !p.is(';') && !p.is(')')) p.type();
    const ranges = [];
    if (p.is('=')) {
      p.next();
      for (;;) {
        const start = p.pos;
        while (!p.is(',') && !p.is(';') && !p.is(')')) {
          if (p.peek().kind === 'op' && OPEN[p.peek().value]) p.skipBalanced();
          else p.next();
        }
        ranges.push([start, p.pos]);
        if (!p.is(',')) break;
        p.next();
      }
    }
    names.forEach((name, i) => index.values.push({ kind, name, range: ranges[i] ?? null }));
  };
  while (p.pos < p.end) {
    if (p.is(';')) p.next();
    else if (p.is('package')) {
      p.next();
      index.packageName = p.ident();
    } else if (p.is('import')) {
      p.next();
      if (p.is('(')) {
        p.next();
        while (!p.is(')'))
          if (p.is(';')) p.next();
          else importSpec();
        p.next();
      } else importSpec();
    } else if (p.is('var') || p.is('const')) {
      const kind = p.next().value;
      if (p.is('(')) {
        p.next();
        while (!p.is(')'))
          if (p.is(';')) p.next();
          else valueSpec(kind);
        p.next();
      } else valueSpec(kind);
    } else if (p.is('type')) p.skipStatement();
    else if (p.is('func')) index.funcs.push(funcDecl(p));
    else p.fail('unexpected top-level token');
  }
  return index;
}

function funcDecl(p) {
  p.expect('func');
  let receiver = null;
  if (p.is('(')) {
    const [group] = p.groups();
    const named =
      group.length > 1 && group[0].kind === 'ident' && !['.', '['].includes(group[1].value);
    const rest = named ? group.slice(1) : group;
    receiver = {
      name: named ? group[0].value : null,
      type: rest.find((token) => token.kind === 'ident').value,
    };
  }
  const name = p.ident();
  if (p.is('[')) p.skipBalanced();
  const params = p.signature();
  let bodyStart = null;
  let bodyEnd = null;
  if (p.is('{')) {
    bodyStart = p.pos + 1;
    p.skipBalanced();
    bodyEnd = p.pos - 1;
  }
  return { name, receiver, params, bodyStart, bodyEnd };
}

/** The name a package is known by when imported without an alias (…/v2/helper/schema -> schema). */
function defaultImportName(importPath) {
  const parts = importPath.split('/');
  const last = parts[parts.length - 1];
  const name = /^v[0-9]+$/.test(last) && parts.length > 1 ? parts[parts.length - 2] : last;
  return name
    .replace(/\.v[0-9]+$/, '')
    .replace(/^go-/, '')
    .replace(/[-.]/g, '_');
}

/** Parses one expression in `tokens` from `start` to `end`. */
function parseExpressionAt(tokens, file, start, end) {
  const p = new Parser(tokens, file, start, end);
  const expression = p.expression();
  if (p.pos !== end) p.fail('unexpected token after expression');
  return expression;
}

/** Parses the statements of a function body between `start` and `end`. */
function parseStatementsAt(tokens, file, start, end) {
  return new Parser(tokens, file, start, end).statements();
}

module.exports = { indexFile, parseExpressionAt, parseStatementsAt };
