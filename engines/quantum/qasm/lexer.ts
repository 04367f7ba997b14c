/** Tokenizer for OpenQASM 2 and 3: identifiers, numbers, strings and operators with positions. */
import { QasmError } from './errors.ts';
import type { Pos } from './errors.ts';

export type TokenKind = 'id' | 'int' | 'float' | 'string' | 'op' | 'hwqubit' | 'eof';

export interface Token extends Pos {
  kind: TokenKind;
  text: string;
}

// Longest first, so that `**` wins over `*` and `->` over `-`.
const OPERATORS = [
  '<<=', '>>=', '**=', '->', '==', '!=', '<=', '>=', '&&', '||', '**', '<<', '>>', '++', '+=', '-=', '*=', '/=',
  '%=', '^=', '&=', '|=', '{', '}', '[', ']', '(', ')', ';', ',', ':', '+', '-', '*', '/', '%', '^', '!', '~',
  '<', '>', '=', '&', '|', '@', '.', '#',
];

const idStart = /[A-Za-z_\u0080-\uffff]/u;
const idPart = /[A-Za-z0-9_\u0080-\uffff]/u;

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let col = 1;
  const advance = (n: number): void => {
    for (let k = 0; k < n; k++) {
      if (src[i] === '\n') {
        line++;
        col = 1;
      } else col++;
      i++;
    }
  };
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n' || ch === '\f') {
      advance(1);
      continue;
    }
    if (src.startsWith('//', i)) {
      while (i < src.length && src[i] !== '\n') advance(1);
      continue;
    }
    if (src.startsWith('/*', i)) {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) throw new QasmError('unterminated block comment', line, col);
      advance(end + 2 - i);
      continue;
    }
    const start = { line, column: col };
    if (ch === '"' || ch === "'") {
      const end = src.indexOf(ch, i + 1);
      if (end < 0) throw new QasmError('unterminated string', line, col);
      out.push({ kind: 'string', text: src.slice(i + 1, end), ...start });
      advance(end + 1 - i);
      continue;
    }
    const num = /^(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?/.exec(src.slice(i, i + 64));
    if (num && /[\d.]/.test(ch)) {
      const text = num[0];
      const isFloat = /[.eE]/.test(text);
      out.push({ kind: isFloat ? 'float' : 'int', text: text.replace(/_/g, ''), ...start });
      advance(text.length);
      continue;
    }
    if (ch === '$') {
      const m = /^\$\d+/.exec(src.slice(i, i + 16));
      if (!m) throw new QasmError("expected a hardware qubit number after '$'", line, col);
      out.push({ kind: 'hwqubit', text: m[0], ...start });
      advance(m[0].length);
      continue;
    }
    if (idStart.test(ch)) {
      let j = i + 1;
      while (j < src.length && idPart.test(src[j]!)) j++;
      out.push({ kind: 'id', text: src.slice(i, j), ...start });
      advance(j - i);
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (!op) throw new QasmError(`unexpected character '${ch}'`, line, col);
    out.push({ kind: 'op', text: op, ...start });
    advance(op.length);
  }
  out.push({ kind: 'eof', text: '<end of input>', line, column: col });
  return out;
}
