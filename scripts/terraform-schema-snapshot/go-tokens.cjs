// Splits Go source into tokens, inserting the semicolons the Go spec inserts at line ends, so the
// parser can find statement ends the way the Go compiler does (composite literals that span lines
// end their lines with `,` or `{`, which never get one).
'use strict';

const KEYWORDS = new Set([
  'break',
  'case',
  'chan',
  'const',
  'continue',
  'default',
  'defer',
  'else',
  'fallthrough',
  'for',
  'func',
  'go',
  'goto',
  'if',
  'import',
  'interface',
  'map',
  'package',
  'range',
  'return',
  'select',
  'struct',
  'switch',
  'type',
  'var',
]);

// Longest first, so `<<=` is not read as `<<` `=`.
const OPERATORS = [
  '<<=',
  '>>=',
  '&^=',
  '...',
  '&&',
  '||',
  '<-',
  '++',
  '--',
  '==',
  '!=',
  '<=',
  '>=',
  ':=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '&=',
  '|=',
  '^=',
  '<<',
  '>>',
  '&^',
  ...'+-*/%&|^<>=!()[]{},;.:~',
];

/** After these, a newline ends the statement (Go spec, "Semicolons"). */
function endsStatement(token) {
  if (!token) return false;
  if (['ident', 'int', 'float', 'imag', 'rune', 'string'].includes(token.kind)) return true;
  if (token.kind === 'keyword')
    return ['break', 'continue', 'fallthrough', 'return'].includes(token.value);
  return token.kind === 'op' && ['++', '--', ')', ']', '}'].includes(token.value);
}

const SIMPLE_ESCAPES = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, "'": 39, '"': 34 };

const HEX_ESCAPES = { x: 2, u: 4, U: 8 };

/** The value of an interpreted string or rune literal body (without its quotes). */
function unquote(body) {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '\\') {
      out += body[i];
      continue;
    }
    const c = body[++i];
    if (c in SIMPLE_ESCAPES) {
      out += String.fromCharCode(SIMPLE_ESCAPES[c]);
    } else if (c in HEX_ESCAPES) {
      out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 1 + HEX_ESCAPES[c]), 16));
      i += HEX_ESCAPES[c];
    } else {
      out += String.fromCharCode(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    }
  }
  return out;
}

/** Tokens of one Go file: {kind, value, line}; kind is ident, keyword, int, float, imag, rune, string, op. */
function tokenize(source, file = '<go>') {
  const tokens = [];
  let line = 1;
  let i = 0;
  const push = (kind, value) => tokens.push({ kind, value, line });
  const newline = () => {
    if (endsStatement(tokens[tokens.length - 1])) push('op', ';');
    line++;
  };
  while (i < source.length) {
    const c = source[i];
    if (c === '\n') {
      newline();
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (source.startsWith('//', i)) {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (source.startsWith('/*', i)) {
      const end = source.indexOf('*/', i + 2);
      if (end < 0) throw new Error(`${file}:${line}: unterminated comment`);
      // A comment spanning lines acts like a newline.
      for (const ch of source.slice(i, end)) if (ch === '\n') newline();
      i = end + 2;
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      const match = /^[\p{L}\p{N}_]+/u.exec(source.slice(i, i + 256));
      const word = match[0];
      push(KEYWORDS.has(word) ? 'keyword' : 'ident', word);
      i += word.length;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const match =
        /^(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?(?:[eE][+-]?[0-9_]+)?)(i?)/.exec(
          source.slice(i, i + 64),
        );
      const text = match[1].replace(/_/g, '');
      const isFloat = /[.eE]/.test(text) && !/^0[xX]/.test(text);
      const value = isFloat
        ? parseFloat(text)
        : /^0[0-7]+$/.test(text)
          ? parseInt(text, 8)
          : Number(text);
      push(match[2] ? 'imag' : isFloat ? 'float' : 'int', value);
      i += match[0].length;
    } else if (c === '"') {
      let j = i + 1;
      while (source[j] !== '"') {
        if (source[j] === '\\') j++;
        if (source[j] === '\n' || j >= source.length)
          throw new Error(`${file}:${line}: unterminated string`);
        j++;
      }
      push('string', unquote(source.slice(i + 1, j)));
      i = j + 1;
    } else if (c === '`') {
      const end = source.indexOf('`', i + 1);
      if (end < 0) throw new Error(`${file}:${line}: unterminated raw string`);
      const text = source.slice(i + 1, end);
      push('string', text.replace(/\r/g, ''));
      line += (text.match(/\n/g) ?? []).length;
      i = end + 1;
    } else if (c === "'") {
      let j = i + 1;
      while (source[j] !== "'") j += source[j] === '\\' ? 2 : 1;
      push('rune', unquote(source.slice(i + 1, j)).codePointAt(0));
      i = j + 1;
    } else {
      const op = OPERATORS.find((o) => source.startsWith(o, i));
      if (!op) throw new Error(`${file}:${line}: unexpected character ${JSON.stringify(c)}`);
      push('op', op);
      i += op.length;
    }
  }
  if (endsStatement(tokens[tokens.length - 1])) push('op', ';');
  return tokens;
}

module.exports = { tokenize };
