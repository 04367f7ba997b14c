/**
 * What the names of an OpenQASM program resolve to during elaboration: registers laid out on
 * the circuit's qubit and bit lines in declaration order, consts, inputs and classical
 * variables, and the scopes of loop variables and gate parameters. Kept apart from the
 * statement walk so every statement resolves names by the same rules.
 */
import type { Circuit, Condition, Register } from '../circuit.ts';
import type { Expr, Ref, Stmt } from './ast.ts';
import { errorAt } from './errors.ts';
import type { Pos } from './errors.ts';
import { evalExpr, evalInt } from './expr.ts';
import type { Lookup } from './expr.ts';
import { selectIndices } from './indices.ts';
import type { Item } from './modifiers.ts';

interface Reg extends Register {
  scalar: boolean;
}

/** Where elaboration stands: inside which gate, loop and condition, and where items go. */
export interface Ctx {
  /** Qubit arguments of the gate being expanded (undefined at top level). */
  bind?: Map<string, number>;
  scopes: Array<Map<string, number>>;
  cond?: Condition;
  emit: (it: Item) => void;
  /** True inside a branch that depends on measured bits (compile-time assignment not allowed). */
  runtime: boolean;
  loopDepth: number;
}

export class Symbols {
  readonly qregs = new Map<string, Reg>();
  readonly cregs = new Map<string, Reg>();
  readonly vars = new Map<string, { value: number; isConst: boolean }>();
  readonly circuit: Circuit = { numQubits: 0, numClbits: 0, qregs: [], cregs: [], ops: [], globalPhase: 0 };

  constructor(
    protected readonly version: 2 | 3,
    private readonly inputs: Record<string, number>,
    private readonly warnings: string[],
  ) {}

  /** Innermost loop variable or gate parameter first, then the program's variables. */
  protected lookup(ctx: Ctx): Lookup {
    return (name) => {
      for (let s = ctx.scopes.length - 1; s >= 0; s--) {
        const v = ctx.scopes[s]!.get(name);
        if (v !== undefined) return v;
      }
      return this.vars.get(name)?.value;
    };
  }

  private checkFree(name: string, pos: Pos): void {
    if (this.qregs.has(name) || this.cregs.has(name) || this.vars.has(name)) {
      throw errorAt(pos, `'${name}' is already declared`);
    }
  }

  protected declare(quantum: boolean, name: string, sizeExpr: Expr | undefined, pos: Pos, ctx: Ctx): void {
    this.checkFree(name, pos);
    const size = sizeExpr ? evalInt(sizeExpr, this.lookup(ctx), 'register size') : 1;
    if (size <= 0) throw errorAt(pos, `register '${name}' must have at least one bit`);
    if (quantum) {
      const reg: Reg = { name, size, offset: this.circuit.numQubits, scalar: !sizeExpr };
      this.qregs.set(name, reg);
      this.circuit.qregs.push({ name, size, offset: reg.offset });
      this.circuit.numQubits += size;
    } else {
      const reg: Reg = { name, size, offset: this.circuit.numClbits, scalar: !sizeExpr };
      this.cregs.set(name, reg);
      this.circuit.cregs.push({ name, size, offset: reg.offset });
      this.circuit.numClbits += size;
    }
  }

  /** A const, input or variable; an input takes its value from the caller's `inputs`. */
  protected declareVar(s: Extract<Stmt, { k: 'vdecl' }>, ctx: Ctx): void {
    if (ctx.bind) throw errorAt(s.pos, 'variable declarations are not allowed inside a gate body');
    this.checkFree(s.name, s.pos);
    let value = 0;
    if (s.isInput) {
      const v = this.inputs[s.name];
      if (v === undefined) throw errorAt(s.pos, `input '${s.name}' needs a value (supply it in inputs)`);
      value = v;
    } else if (s.init) value = evalExpr(s.init, this.lookup(ctx));
    if (s.type === 'int' || s.type === 'uint') value = Math.trunc(value);
    this.vars.set(s.name, { value, isConst: s.isConst || s.isInput });
  }

  /** Variables are evaluated at compile time, so an assignment under a measured condition is refused. */
  protected assign(s: Extract<Stmt, { k: 'assign' }>, ctx: Ctx): void {
    if (ctx.runtime) throw errorAt(s.pos, 'classical assignments that depend on measured bits are not supported');
    if (s.target.index) throw errorAt(s.target.pos, 'assignment to an indexed variable is not supported');
    const v = this.vars.get(s.target.name);
    if (!v) {
      if (this.cregs.has(s.target.name)) throw errorAt(s.pos, 'bits can only be assigned by a measurement');
      throw errorAt(s.target.pos, `unknown variable '${s.target.name}'`);
    }
    if (v.isConst) throw errorAt(s.pos, `cannot assign to constant '${s.target.name}'`);
    const rhs = evalExpr(s.value, this.lookup(ctx));
    const op = s.op === '=' ? undefined : s.op.slice(0, -1);
    v.value = op === undefined ? rhs : evalExpr(
      { k: 'bin', op, a: { k: 'num', value: v.value, isInt: false, pos: s.pos }, b: { k: 'num', value: rhs, isInt: false, pos: s.pos }, pos: s.pos },
      () => undefined,
    );
  }

  protected qubits(ref: Ref, ctx: Ctx): number[] {
    if (ctx.bind) {
      if (ref.index) throw errorAt(ref.pos, 'gate arguments cannot be indexed inside a gate body');
      const q = ctx.bind.get(ref.name);
      if (q === undefined) throw errorAt(ref.pos, `unknown qubit argument '${ref.name}'`);
      return [q];
    }
    const reg = this.qregs.get(ref.name);
    if (!reg) throw errorAt(ref.pos, `unknown quantum register '${ref.name}'`);
    return selectIndices(ref.index, reg.size, this.lookup(ctx), ref.pos, ref.name).map((i) => reg.offset + i);
  }

  protected allQubits(ctx: Ctx): number[] {
    if (ctx.bind) return [...ctx.bind.values()];
    return Array.from({ length: this.circuit.numQubits }, (_, i) => i);
  }

  protected clbits(ref: Ref, ctx: Ctx): number[] {
    const reg = this.cregs.get(ref.name);
    if (!reg) throw errorAt(ref.pos, `unknown classical register '${ref.name}'`);
    return selectIndices(ref.index, reg.size, this.lookup(ctx), ref.pos, ref.name).map((i) => reg.offset + i);
  }

  /**
   * Some published OpenQASM 2 files (QASMBench's vqe_uccsd) measure `q -> c` without declaring
   * either register although the program has exactly one quantum register. Such a measurement
   * is read as measuring that register into a new classical register, with a warning.
   */
  protected repairMeasure(dst: Ref, src: Ref, pos: Pos, ctx: Ctx): void {
    if (this.version !== 2 || ctx.bind || this.qregs.has(src.name) || this.qregs.size !== 1) return;
    const only = [...this.qregs.values()][0]!;
    if (this.cregs.has(dst.name) && this.cregs.get(dst.name)!.size !== only.size) return;
    this.warnings.push(`line ${pos.line}: undeclared register '${src.name}' read as '${only.name}'`);
    this.qregs.set(src.name, only);
    if (!this.cregs.has(dst.name) && !this.qregs.has(dst.name) && !this.vars.has(dst.name)) {
      this.warnings.push(`line ${pos.line}: undeclared classical register '${dst.name}' declared with ${only.size} bits`);
      this.declare(false, dst.name, { k: 'num', value: only.size, isInt: true, pos }, pos, ctx);
    }
  }
}
