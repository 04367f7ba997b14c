/**
 * Recursive-descent parser for OpenQASM 2 and the supported OpenQASM 3 subset. Unsupported
 * OpenQASM 3 features are rejected here with their line and column, never skipped.
 */
import type { Expr, IndexItem, Modifier, Program, Ref, Stmt } from './ast.ts';
import { ExprParser } from './expr-parser.ts';
import { errorAt } from './errors.ts';
import type { Pos } from './errors.ts';
import { tokenize } from './lexer.ts';

const UNSUPPORTED: Record<string, string> = {
  def: 'subroutine definitions (def)',
  defcal: 'calibration definitions (defcal)',
  cal: 'calibration blocks (cal)',
  defcalgrammar: 'defcalgrammar',
  while: 'while loops',
  switch: 'switch statements',
  box: 'box statements',
  delay: 'delay instructions',
  stretch: 'stretch types',
  duration: 'duration types',
  extern: 'extern declarations',
  let: 'aliases (let)',
  array: 'arrays',
  complex: 'complex types',
  break: 'break',
  continue: 'continue',
  return: 'return',
  end: 'end',
  output: 'output declarations',
  durationof: 'durationof',
};

const CLASSICAL_TYPES = new Set(['int', 'uint', 'float', 'angle', 'bool']);
const MODIFIERS = new Set(['ctrl', 'negctrl', 'inv', 'pow']);

class Parser extends ExprParser {
  program(): Program {
    // Without a header, OpenQASM 3 declarations or stdgates.inc mark version 3; else 2.
    this.version = this.toks.some((t) => (t.kind === 'id' && (t.text === 'qubit' || t.text === 'bit')) || (t.kind === 'string' && t.text === 'stdgates.inc')) ? 3 : 2;
    if (this.is('OPENQASM')) {
      this.next();
      const v = this.next();
      if (v.kind !== 'int' && v.kind !== 'float') throw errorAt(v, `expected a version number, found '${v.text}'`);
      const major = Math.floor(Number(v.text));
      if (major !== 2 && major !== 3) throw errorAt(v, `unsupported OpenQASM version ${v.text} (expected 2 or 3)`);
      this.version = major;
      this.expect(';');
    }
    const body: Stmt[] = [];
    while (this.peek().kind !== 'eof') body.push(this.statement());
    return { version: this.version, body };
  }

  private block(): Stmt[] {
    if (this.accept('{')) {
      const out: Stmt[] = [];
      while (!this.is('}')) {
        if (this.peek().kind === 'eof') throw errorAt(this.peek(), "expected '}'");
        out.push(this.statement());
      }
      this.next();
      return out;
    }
    return [this.statement()];
  }

  statement(): Stmt {
    const t = this.peek();
    const pos: Pos = { line: t.line, column: t.column };
    if (t.kind === 'op' && t.text === '#') throw errorAt(t, 'pragmas are not supported');
    if (t.kind === 'op' && t.text === '@') throw errorAt(t, 'annotations (@) are not supported');
    if (t.kind === 'hwqubit') throw errorAt(t, 'hardware qubits ($n) are not supported; declare a qubit register');
    if (t.kind !== 'id') throw errorAt(t, `expected a statement, found '${t.text}'`);
    const word = t.text;
    if (word === 'OPENQASM') throw errorAt(t, 'the OPENQASM version must be the first statement');
    if (word === 'pragma') throw errorAt(t, 'pragmas are not supported');
    const unsupported = UNSUPPORTED[word];
    if (unsupported) throw errorAt(t, `${unsupported} are not supported`);
    switch (word) {
      case 'include': {
        this.next();
        const s = this.next();
        if (s.kind !== 'string') throw errorAt(s, 'expected a file name in quotes');
        this.expect(';');
        return { k: 'include', path: s.text, pos };
      }
      case 'qreg':
      case 'creg': {
        this.next();
        const name = this.ident('a register name').text;
        let size: Expr | undefined;
        if (this.accept('[')) {
          size = this.expr();
          this.expect(']');
        } else if (this.version === 2) throw errorAt(this.peek(), "expected '[' and a register size");
        this.expect(';');
        return word === 'qreg' ? { k: 'qdecl', name, size, pos } : { k: 'cdecl', name, size, pos };
      }
      case 'qubit':
      case 'bit': {
        this.next();
        let size: Expr | undefined;
        if (this.accept('[')) {
          size = this.expr();
          this.expect(']');
        }
        const name = this.ident('a register name').text;
        if (word === 'qubit') {
          this.expect(';');
          return { k: 'qdecl', name, size, pos };
        }
        let init: Ref | undefined;
        if (this.accept('=')) {
          this.expect('measure', "'measure' (a bit can only be initialised by a measurement)");
          init = this.ref();
        }
        this.expect(';');
        return { k: 'cdecl', name, size, init, pos };
      }
      case 'const':
      case 'input': {
        this.next();
        const type = this.typeName();
        const name = this.ident().text;
        let init: Expr | undefined;
        if (word === 'const') {
          this.expect('=', "'=' and a value (a const needs a value)");
          init = this.expr();
        }
        this.expect(';');
        return { k: 'vdecl', name, type, isConst: word === 'const', isInput: word === 'input', init, pos };
      }
      case 'gate':
      case 'opaque':
        return this.gateDef(word, pos);
      case 'measure': {
        this.next();
        const src = this.ref();
        let dst: Ref | undefined;
        if (this.accept('->')) dst = this.ref();
        this.expect(';');
        return { k: 'measure', src, dst, pos };
      }
      case 'reset': {
        this.next();
        const target = this.ref();
        this.expect(';');
        return { k: 'reset', target, pos };
      }
      case 'barrier': {
        this.next();
        const targets: Ref[] = [];
        if (!this.is(';')) {
          do targets.push(this.ref());
          while (this.accept(','));
        }
        this.expect(';');
        return { k: 'barrier', targets, pos };
      }
      case 'if': {
        this.next();
        this.expect('(');
        const cond = this.expr();
        this.expect(')');
        const then = this.block();
        const els = this.accept('else') ? this.block() : undefined;
        return { k: 'if', cond, then, else: els, pos };
      }
      case 'for': {
        this.next();
        if (CLASSICAL_TYPES.has(this.peek().text) && (this.peek(1).kind === 'id' || this.is('[', 1))) this.typeName();
        const name = this.ident('a loop variable').text;
        this.expect('in');
        let iter: IndexItem;
        if (this.is('[')) {
          this.next();
          iter = this.indexItem(true);
          this.expect(']');
        } else if (this.is('{')) iter = this.indexItem(false);
        else throw errorAt(this.peek(), "expected a range '[a:b]' or a set '{...}' to loop over");
        const body = this.block();
        return { k: 'for', name, iter, body, pos };
      }
      default:
        break;
    }
    if (CLASSICAL_TYPES.has(word)) {
      const type = this.typeName();
      const name = this.ident().text;
      let init: Expr | undefined;
      if (this.accept('=')) init = this.expr();
      this.expect(';');
      return { k: 'vdecl', name, type, isConst: false, isInput: false, init, pos };
    }
    if (MODIFIERS.has(word) && (this.is('@', 1) || this.is('(', 1))) {
      // `pow(2) @ x` and `ctrl(2) @ x` start with a modifier; `ctrl` alone could be a gate name.
      if (this.is('@', 1) || this.looksLikeModifier()) return this.gateCall(pos);
    }
    // An identifier followed by `=` or `[...] =` is an assignment; otherwise a gate call.
    if (this.is('=', 1) || /^[-+*/%^&|]=|^(<<|>>|\*\*)=$/.test(this.peek(1).text) || this.isIndexedAssignment()) {
      const target = this.ref();
      const op = this.next();
      if (this.accept('measure')) {
        if (op.text !== '=') throw errorAt(op, "expected '=' before measure");
        const src = this.ref();
        this.expect(';');
        return { k: 'measure', src, dst: target, pos };
      }
      const value = this.expr();
      this.expect(';');
      return { k: 'assign', target, op: op.text, value, pos };
    }
    return this.gateCall(pos);
  }

  private looksLikeModifier(): boolean {
    // Scan past a parenthesised argument to see whether `@` follows.
    let depth = 0;
    for (let o = 1; o < 256; o++) {
      const t = this.peek(o);
      if (t.kind === 'eof') return false;
      if (t.text === '(') depth++;
      else if (t.text === ')') {
        depth--;
        if (depth === 0) return this.is('@', o + 1);
      }
    }
    return false;
  }

  private isIndexedAssignment(): boolean {
    if (!this.is('[', 1)) return false;
    let depth = 0;
    for (let o = 1; o < 256; o++) {
      const t = this.peek(o);
      if (t.kind === 'eof') return false;
      if (t.text === '[') depth++;
      else if (t.text === ']') {
        depth--;
        if (depth === 0) {
          const n = this.peek(o + 1).text;
          return n === '=' || (n.length >= 2 && n.endsWith('=') && n !== '==' && n !== '!=' && n !== '<=' && n !== '>=');
        }
      }
    }
    return false;
  }

  private typeName(): string {
    const t = this.ident('a type');
    if (UNSUPPORTED[t.text]) throw errorAt(t, `${UNSUPPORTED[t.text]} are not supported`);
    if (!CLASSICAL_TYPES.has(t.text) && t.text !== 'bit') throw errorAt(t, `expected a classical type (int, uint, float, angle, bool), found '${t.text}'`);
    if (this.accept('[')) {
      this.expr();
      this.expect(']');
    }
    return t.text;
  }

  private gateDef(word: 'gate' | 'opaque', pos: Pos): Stmt {
    this.next();
    const name = this.ident('a gate name').text;
    const params: string[] = [];
    if (this.accept('(')) {
      if (!this.is(')')) {
        do params.push(this.ident('a parameter name').text);
        while (this.accept(','));
      }
      this.expect(')');
    }
    const qubits: string[] = [];
    do qubits.push(this.ident('a qubit argument name').text);
    while (this.accept(','));
    if (word === 'opaque') {
      this.expect(';');
      return { k: 'opaque', name, params, qubits, pos };
    }
    this.expect('{', "'{' to start the gate body");
    const body: Stmt[] = [];
    while (!this.is('}')) {
      if (this.peek().kind === 'eof') throw errorAt(this.peek(), "expected '}' to end the gate body");
      body.push(this.statement());
    }
    this.next();
    return { k: 'gatedef', name, params, qubits, body, pos };
  }

  private gateCall(pos: Pos): Stmt {
    const mods: Modifier[] = [];
    while (MODIFIERS.has(this.peek().text) && (this.is('@', 1) || (this.is('(', 1) && this.looksLikeModifier()))) {
      const m = this.next();
      const mpos = { line: m.line, column: m.column };
      let arg: Expr | undefined;
      if (this.accept('(')) {
        arg = this.expr();
        this.expect(')');
      }
      this.expect('@');
      if (m.text === 'inv') {
        if (arg) throw errorAt(m, "'inv' takes no argument");
        mods.push({ k: 'inv', pos: mpos });
      } else if (m.text === 'pow') {
        if (!arg) throw errorAt(m, "expected '(' and an exponent after 'pow'");
        mods.push({ k: 'pow', e: arg, pos: mpos });
      } else mods.push({ k: m.text as 'ctrl' | 'negctrl', n: arg, pos: mpos });
    }
    const nameTok = this.ident('a gate name');
    const params: Expr[] = [];
    if (this.accept('(')) {
      if (!this.is(')')) {
        do params.push(this.expr());
        while (this.accept(','));
      }
      this.expect(')');
    }
    const args: Ref[] = [];
    if (!this.is(';')) {
      do args.push(this.ref());
      while (this.accept(','));
    }
    this.expect(';', "';' after the gate's qubit arguments");
    return { k: 'call', name: nameTok.text, mods, params, args, pos };
  }
}

/** Parse OpenQASM source into a syntax tree (the version from the header, or guessed without one). */
export function parseProgram(text: string): Program {
  return new Parser(tokenize(text)).program();
}
