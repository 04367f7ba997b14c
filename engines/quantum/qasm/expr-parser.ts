/**
 * Token cursor and expression grammar shared by the OpenQASM statement parser: operators with
 * precedence, calls, indexed references, ranges and sets.
 */
import type { Expr, IndexItem, Ref } from './ast.ts';
import { errorAt } from './errors.ts';
import type { Token } from './lexer.ts';

/** Binary operator precedence (higher binds tighter); `**` is right-associative. */
const PRECEDENCE: Record<string, number> = {
  '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5, '==': 6, '!=': 6, '<': 7, '>': 7, '<=': 7, '>=': 7,
  '<<': 8, '>>': 8, '+': 9, '-': 9, '*': 10, '/': 10, '%': 10,
};

export class ExprParser {
  protected i = 0;
  version: 2 | 3 = 3;

  constructor(protected readonly toks: Token[]) {}

  protected peek(o = 0): Token {
    return this.toks[Math.min(this.i + o, this.toks.length - 1)]!;
  }
  protected next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }
  protected is(text: string, o = 0): boolean {
    const t = this.peek(o);
    return (t.kind === 'op' || t.kind === 'id') && t.text === text;
  }
  protected accept(text: string): boolean {
    if (this.is(text)) {
      this.i++;
      return true;
    }
    return false;
  }
  protected expect(text: string, what = `'${text}'`): Token {
    const t = this.peek();
    if (!this.is(text)) throw errorAt(t, `expected ${what}, found '${t.text}'`);
    return this.next();
  }
  protected ident(what = 'an identifier'): Token {
    const t = this.peek();
    if (t.kind !== 'id') throw errorAt(t, `expected ${what}, found '${t.text}'`);
    return this.next();
  }

  /**
   * Lookahead past the bracket group that opens at the next-but-one token (`name(...)`,
   * `name[...]`): the offset of the token after it, or -1 when the group does not close
   * within 256 tokens. Statements that start the same way are told apart by that token.
   */
  protected afterGroup(open: string, close: string): number {
    let depth = 0;
    for (let o = 1; o < 256; o++) {
      const t = this.peek(o);
      if (t.kind === 'eof') return -1;
      if (t.text === open) depth++;
      else if (t.text === close) {
        depth--;
        if (depth === 0) return o + 1;
      }
    }
    return -1;
  }


  ref(): Ref {
    const t = this.peek();
    if (t.kind === 'hwqubit') throw errorAt(t, 'hardware qubits ($n) are not supported; declare a qubit register');
    const name = this.ident('a register or qubit name');
    const pos = { line: name.line, column: name.column };
    if (this.accept('[')) {
      const index = this.indexItem(true);
      this.expect(']');
      if (this.is('[')) throw errorAt(this.peek(), 'multi-dimensional indexing is not supported');
      return { name: name.text, index, pos };
    }
    return { name: name.text, pos };
  }

  /** Inside `[...]`: an expression, a range `a:b` / `a:step:b`, or a set `{...}`. */
  protected indexItem(allowRange: boolean): IndexItem {
    if (this.is('{')) {
      this.next();
      const items: Expr[] = [];
      if (!this.is('}')) {
        do items.push(this.expr());
        while (this.accept(','));
      }
      this.expect('}');
      return { k: 'set', items };
    }
    const parts: Array<Expr | undefined> = [];
    let cur: Expr | undefined = this.is(':') ? undefined : this.expr();
    if (!allowRange || !this.is(':')) {
      if (!cur) throw errorAt(this.peek(), 'expected an index');
      return { k: 'expr', e: cur };
    }
    parts.push(cur);
    while (this.accept(':')) {
      cur = this.is(':') || this.is(']') ? undefined : this.expr();
      parts.push(cur);
    }
    if (parts.length === 2) return { k: 'range', start: parts[0], stop: parts[1] };
    if (parts.length === 3) return { k: 'range', start: parts[0], step: parts[1], stop: parts[2] };
    throw errorAt(this.peek(), "expected a range 'start:stop' or 'start:step:stop'");
  }

  expr(minPrec = 0): Expr {
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op') return left;
      // `^` is power in OpenQASM 2 and exclusive-or in OpenQASM 3.
      if (t.text === '**' || (t.text === '^' && this.version === 2)) {
        if (11 < minPrec) return left;
        this.next();
        const right = this.expr(11);
        left = { k: 'bin', op: '**', a: left, b: right, pos: t };
        continue;
      }
      const prec = PRECEDENCE[t.text];
      if (prec === undefined || prec < minPrec) return left;
      this.next();
      const right = this.expr(prec + 1);
      left = { k: 'bin', op: t.text, a: left, b: right, pos: t };
    }
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.kind === 'op' && (t.text === '-' || t.text === '+' || t.text === '!' || t.text === '~')) {
      this.next();
      // Unary minus binds looser than `**`: -2**2 is -4.
      const a = this.expr(11);
      return { k: 'un', op: t.text, a, pos: t };
    }
    return this.primary();
  }

  private primary(): Expr {
    const t = this.next();
    const pos = { line: t.line, column: t.column };
    if (t.kind === 'int' || t.kind === 'float') {
      if (this.peek().kind === 'id' && /^(ns|us|µs|ms|s|dt)$/.test(this.peek().text)) {
        throw errorAt(this.peek(), 'durations are not supported');
      }
      return { k: 'num', value: Number(t.text), isInt: t.kind === 'int', pos };
    }
    if (t.kind === 'op' && t.text === '(') {
      const e = this.expr();
      this.expect(')');
      return e;
    }
    if (t.kind === 'id') {
      if (t.text === 'true' || t.text === 'false') return { k: 'num', value: t.text === 'true' ? 1 : 0, isInt: true, pos };
      if (t.text === 'measure') throw errorAt(t, 'measure can only be assigned to a bit');
      if (this.is('(')) {
        this.next();
        const args: Expr[] = [];
        if (!this.is(')')) {
          do args.push(this.expr());
          while (this.accept(','));
        }
        this.expect(')');
        return { k: 'call', fn: t.text, args, pos };
      }
      if (this.is('[')) {
        this.next();
        const index = this.indexItem(true);
        this.expect(']');
        return { k: 'ref', ref: { name: t.text, index, pos }, pos };
      }
      return { k: 'ref', ref: { name: t.text, pos }, pos };
    }
    throw errorAt(t, `expected an expression, found '${t.text}'`);
  }
}
