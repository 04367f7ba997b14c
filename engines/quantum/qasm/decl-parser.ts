/**
 * Declarations of the OpenQASM statement grammar: quantum and classical registers in the
 * OpenQASM 2 (`qreg q[2];`) and 3 (`qubit[2] q;`) spellings, consts, inputs and classical
 * variables. Types are checked against the classical types the subset evaluates.
 */
import type { Expr, Ref, Stmt } from './ast.ts';
import { errorAt } from './errors.ts';
import type { Pos } from './errors.ts';
import { ExprParser } from './expr-parser.ts';
import { rejectUnsupported } from './unsupported.ts';

export const CLASSICAL_TYPES = new Set(['int', 'uint', 'float', 'angle', 'bool']);

export class DeclParser extends ExprParser {
  /** `qreg q[n];` / `creg c[n];`: only OpenQASM 3 lets the size default to one. */
  protected registerDecl(word: 'qreg' | 'creg', pos: Pos): Stmt {
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

  /** `qubit[n] q;` / `bit[n] c;`, where a bit register may be initialised by a measurement. */
  protected typedRegisterDecl(word: 'qubit' | 'bit', pos: Pos): Stmt {
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

  /** `const T x = v;` needs its value here; `input T x;` gets it from the caller at elaboration. */
  protected constOrInputDecl(word: 'const' | 'input', pos: Pos): Stmt {
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

  /** `T x;` or `T x = v;` for a mutable classical variable. */
  protected variableDecl(pos: Pos): Stmt {
    const type = this.typeName();
    const name = this.ident().text;
    let init: Expr | undefined;
    if (this.accept('=')) init = this.expr();
    this.expect(';');
    return { k: 'vdecl', name, type, isConst: false, isInput: false, init, pos };
  }

  /** A classical type with an optional width; the width is read and dropped (values are plain numbers). */
  protected typeName(): string {
    const t = this.ident('a type');
    rejectUnsupported(t);
    if (!CLASSICAL_TYPES.has(t.text) && t.text !== 'bit') throw errorAt(t, `expected a classical type (int, uint, float, angle, bool), found '${t.text}'`);
    if (this.accept('[')) {
      this.expr();
      this.expect(']');
    }
    return t.text;
  }
}
