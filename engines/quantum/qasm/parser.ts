/**
 * Recursive-descent parser for OpenQASM 2 and the supported OpenQASM 3 subset: the program,
 * its blocks and the statement dispatch, with classical control flow, measurement and
 * assignment. Declarations and gates have their own grammar files; unsupported OpenQASM 3
 * features are rejected here with their line and column, never skipped.
 */
import type { IndexItem, Program, Ref, Stmt } from './ast.ts';
import { CLASSICAL_TYPES } from './decl-parser.ts';
import { errorAt } from './errors.ts';
import type { Pos } from './errors.ts';
import { GateParser } from './gate-parser.ts';
import { tokenize } from './lexer.ts';
import { rejectUnsupported } from './unsupported.ts';

class Parser extends GateParser {
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

  override statement(): Stmt {
    const t = this.peek();
    const pos: Pos = { line: t.line, column: t.column };
    if (t.kind === 'op' && t.text === '#') throw errorAt(t, 'pragmas are not supported');
    if (t.kind === 'op' && t.text === '@') throw errorAt(t, 'annotations (@) are not supported');
    if (t.kind === 'hwqubit') throw errorAt(t, 'hardware qubits ($n) are not supported; declare a qubit register');
    if (t.kind !== 'id') throw errorAt(t, `expected a statement, found '${t.text}'`);
    const word = t.text;
    if (word === 'OPENQASM') throw errorAt(t, 'the OPENQASM version must be the first statement');
    if (word === 'pragma') throw errorAt(t, 'pragmas are not supported');
    rejectUnsupported(t);
    switch (word) {
      case 'include': {
        this.next();
        const s = this.next();
        if (s.kind !== 'string') throw errorAt(s, 'expected a file name in quotes');
        this.expect(';');
        return { k: 'include', path: s.text, pos };
      }
      case 'qreg':
      case 'creg':
        return this.registerDecl(word, pos);
      case 'qubit':
      case 'bit':
        return this.typedRegisterDecl(word, pos);
      case 'const':
      case 'input':
        return this.constOrInputDecl(word, pos);
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
    if (CLASSICAL_TYPES.has(word)) return this.variableDecl(pos);
    // `pow(2) @ x` and `ctrl(2) @ x` start with a modifier; `ctrl` alone could be a gate name.
    if (this.atModifier()) return this.gateCall(pos);
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

  private isIndexedAssignment(): boolean {
    if (!this.is('[', 1)) return false;
    const after = this.afterGroup('[', ']');
    if (after < 0) return false;
    const n = this.peek(after).text;
    return n === '=' || (n.length >= 2 && n.endsWith('=') && n !== '==' && n !== '!=' && n !== '<=' && n !== '>=');
  }
}

/** Parse OpenQASM source into a syntax tree (the version from the header, or guessed without one). */
export function parseProgram(text: string): Program {
  return new Parser(tokenize(text)).program();
}
