/**
 * Turns an OpenQASM syntax tree into the shared Circuit model: registers flattened in
 * declaration order, user gates inlined down to standard-table gates, modifiers applied,
 * loops unrolled and classical conditions attached to the operations they guard.
 */
import type { Circuit, Condition, Register } from '../circuit.ts';
import { canonicalGateName, gateInfo } from '../gates.ts';
import type { Expr, IndexItem, Modifier, Program, Ref, Stmt } from './ast.ts';
import { conditionCases, mergeConditions } from './conditions.ts';
import { QasmError, errorAt } from './errors.ts';
import type { Pos } from './errors.ts';
import { evalExpr, evalInt } from './expr.ts';
import { rangeValues, selectIndices } from './indices.ts';
import type { Lookup } from './expr.ts';
import { addControls, invert, power } from './modifiers.ts';
import type { Item } from './modifiers.ts';

export interface ElaborateOptions {
  /** Values for `input` parameters (OpenQASM 3). */
  inputs?: Record<string, number>;
  /** Receives a message for each input defect the parser repaired (see README: lenient measure). */
  warnings?: string[];
}

interface Reg extends Register {
  scalar: boolean;
}

interface GateDefn {
  params: string[];
  qubits: string[];
  body?: Stmt[];
}

interface Ctx {
  /** Qubit arguments of the gate being expanded (undefined at top level). */
  bind?: Map<string, number>;
  scopes: Array<Map<string, number>>;
  cond?: Condition;
  emit: (it: Item) => void;
  /** True inside a branch that depends on measured bits (compile-time assignment not allowed). */
  runtime: boolean;
  loopDepth: number;
}

const INCLUDABLE = new Set(['qelib1.inc', 'stdgates.inc']);
const MAX_CONDITION_BITS = 12;

class Elaborator {
  readonly qregs = new Map<string, Reg>();
  readonly cregs = new Map<string, Reg>();
  readonly gates = new Map<string, GateDefn>();
  readonly opaque = new Map<string, GateDefn>();
  readonly vars = new Map<string, { value: number; isConst: boolean }>();
  readonly circuit: Circuit = { numQubits: 0, numClbits: 0, qregs: [], cregs: [], ops: [], globalPhase: 0 };

  constructor(
    private readonly version: 2 | 3,
    private readonly inputs: Record<string, number>,
    private readonly warnings: string[],
  ) {}

  run(body: Stmt[]): Circuit {
    const ctx: Ctx = { scopes: [], emit: (it) => this.emitTop(it), runtime: false, loopDepth: 0 };
    this.exec(body, ctx);
    return this.circuit;
  }

  private emitTop(it: Item): void {
    if (it.kind === 'gphase') {
      // A global phase under a classical condition is unobservable, so it is dropped there.
      this.circuit.globalPhase += it.angle;
      return;
    }
    this.circuit.ops.push(it);
  }

  private lookup(ctx: Ctx): Lookup {
    return (name) => {
      for (let s = ctx.scopes.length - 1; s >= 0; s--) {
        const v = ctx.scopes[s]!.get(name);
        if (v !== undefined) return v;
      }
      return this.vars.get(name)?.value;
    };
  }

  private exec(stmts: Stmt[], ctx: Ctx): void {
    for (const s of stmts) this.stmt(s, ctx);
  }

  private global(s: Stmt, ctx: Ctx, what: string): void {
    if (ctx.bind) throw errorAt(s.pos, `${what} is not allowed inside a gate body`);
    if (ctx.loopDepth > 0 || ctx.cond) throw errorAt(s.pos, `${what} is allowed only at the top level`);
  }

  private stmt(s: Stmt, ctx: Ctx): void {
    switch (s.k) {
      case 'include':
        this.global(s, ctx, 'include');
        if (!INCLUDABLE.has(s.path)) {
          throw errorAt(s.pos, `cannot include '${s.path}': only "qelib1.inc" and "stdgates.inc" are available`);
        }
        return;
      case 'qdecl':
      case 'cdecl': {
        this.global(s, ctx, 'a register declaration');
        this.declare(s.k === 'qdecl', s.name, s.size, s.pos, ctx);
        if (s.k === 'cdecl' && s.init) this.measure({ name: s.name, pos: s.pos }, s.init, s.pos, ctx);
        return;
      }
      case 'vdecl': {
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
        return;
      }
      case 'gatedef':
      case 'opaque': {
        this.global(s, ctx, 'a gate definition');
        const std = gateInfo(s.name);
        // A definition of a standard gate with the standard arity keeps the table gate.
        if (std && std.numParams === s.params.length && std.numQubits === s.qubits.length) return;
        if (this.gates.has(s.name) || this.opaque.has(s.name)) throw errorAt(s.pos, `gate '${s.name}' is already defined`);
        const defn: GateDefn = { params: s.params, qubits: s.qubits };
        if (s.k === 'gatedef') {
          defn.body = s.body;
          this.gates.set(s.name, defn);
        } else this.opaque.set(s.name, defn);
        return;
      }
      case 'call':
        this.call(s, ctx);
        return;
      case 'measure':
        if (ctx.bind) throw errorAt(s.pos, 'measure is not allowed inside a gate body');
        if (!s.dst) throw errorAt(s.pos, "a measurement needs a target bit ('measure q -> c' or 'c = measure q')");
        this.measure(s.dst, s.src, s.pos, ctx);
        return;
      case 'reset': {
        if (ctx.bind) throw errorAt(s.pos, 'reset is not allowed inside a gate body');
        for (const q of this.qubits(s.target, ctx)) ctx.emit(withCond({ kind: 'reset', qubit: q }, ctx.cond));
        return;
      }
      case 'barrier': {
        const qs = s.targets.length ? s.targets.flatMap((t) => this.qubits(t, ctx)) : this.allQubits(ctx);
        ctx.emit({ kind: 'barrier', qubits: [...new Set(qs)] });
        return;
      }
      case 'if':
        this.ifStmt(s, ctx);
        return;
      case 'for': {
        const values = this.iterate(s.iter, ctx, s.pos);
        const scope = new Map<string, number>();
        const inner: Ctx = { ...ctx, scopes: [...ctx.scopes, scope], loopDepth: ctx.loopDepth + 1 };
        for (const v of values) {
          scope.set(s.name, v);
          this.exec(s.body, inner);
        }
        return;
      }
      case 'assign': {
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
        return;
      }
    }
  }

  private checkFree(name: string, pos: Pos): void {
    if (this.qregs.has(name) || this.cregs.has(name) || this.vars.has(name)) {
      throw errorAt(pos, `'${name}' is already declared`);
    }
  }

  private declare(quantum: boolean, name: string, sizeExpr: Expr | undefined, pos: Pos, ctx: Ctx): void {
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

  private iterate(iter: IndexItem, ctx: Ctx, pos: Pos): number[] {
    if (iter.k === 'range') return rangeValues(iter, this.lookup(ctx), pos);
    if (iter.k === 'set') return iter.items.map((e) => evalExpr(e, this.lookup(ctx)));
    throw errorAt(pos, "expected a range '[a:b]' or a set '{...}' to loop over");
  }

  private qubits(ref: Ref, ctx: Ctx): number[] {
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

  private allQubits(ctx: Ctx): number[] {
    if (ctx.bind) return [...ctx.bind.values()];
    return Array.from({ length: this.circuit.numQubits }, (_, i) => i);
  }

  clbits(ref: Ref, ctx: Ctx): number[] {
    const reg = this.cregs.get(ref.name);
    if (!reg) throw errorAt(ref.pos, `unknown classical register '${ref.name}'`);
    return selectIndices(ref.index, reg.size, this.lookup(ctx), ref.pos, ref.name).map((i) => reg.offset + i);
  }

  private measure(dst: Ref, src: Ref, pos: Pos, ctx: Ctx): void {
    this.repairMeasure(dst, src, pos, ctx);
    const qs = this.qubits(src, ctx);
    const cs = this.clbits(dst, ctx);
    if (qs.length !== cs.length) {
      throw errorAt(pos, `measure: ${qs.length} qubit(s) but ${cs.length} bit(s)`);
    }
    qs.forEach((q, i) => ctx.emit(withCond({ kind: 'measure', qubit: q, clbit: cs[i]! }, ctx.cond)));
  }

  /**
   * Some published OpenQASM 2 files (QASMBench's vqe_uccsd) measure `q -> c` without declaring
   * either register although the program has exactly one quantum register. Such a measurement
   * is read as measuring that register into a new classical register, with a warning.
   */
  private repairMeasure(dst: Ref, src: Ref, pos: Pos, ctx: Ctx): void {
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

  private ifStmt(s: Extract<Stmt, { k: 'if' }>, ctx: Ctx): void {
    const cases = conditionCases(s.cond, {
      isClassicalRef: (name) => this.cregs.has(name),
      clbits: (ref) => this.clbits(ref, ctx),
      lookup: this.lookup(ctx),
      maxBits: MAX_CONDITION_BITS,
    });
    if (cases.static !== undefined) {
      if (cases.static) this.exec(s.then, ctx);
      else if (s.else) this.exec(s.else, ctx);
      return;
    }
    if (ctx.bind) throw errorAt(s.pos, 'conditions on bits are not allowed inside a gate body');
    const branch = (conds: Condition[], body: Stmt[]): void => {
      for (const c of conds) {
        const merged = mergeConditions(ctx.cond, c);
        if (merged === null) continue;
        this.exec(body, { ...ctx, cond: merged, runtime: true, emit: ctx.emit });
      }
    };
    branch(cases.then, s.then);
    if (s.else) {
      if (cases.else === null) throw errorAt(s.pos, `'else' on a comparison of more than ${MAX_CONDITION_BITS} bits is not supported`);
      branch(cases.else, s.else);
    }
  }

  private call(s: Extract<Stmt, { k: 'call' }>, ctx: Ctx): void {
    const look = this.lookup(ctx);
    const params = s.params.map((e) => evalExpr(e, look));
    const ctrlCounts = s.mods.map((m) => (m.k === 'ctrl' || m.k === 'negctrl' ? (m.n ? evalInt(m.n, look, 'control count') : 1) : 0));
    const nctrl = ctrlCounts.reduce((a, b) => a + b, 0);
    const { arity, nparams } = this.signature(s.name, s.pos);
    if (params.length !== nparams) {
      throw errorAt(s.pos, `gate '${s.name}' takes ${nparams} parameter(s), got ${params.length}`);
    }
    if (s.args.length !== arity + nctrl) {
      throw errorAt(s.pos, `gate '${s.name}'${nctrl ? ` with ${nctrl} control(s)` : ''} takes ${arity + nctrl} qubit argument(s), got ${s.args.length}`);
    }
    const lists = s.args.map((a) => ({ qs: this.qubits(a, ctx), reg: !a.index && !ctx.bind && !this.qregs.get(a.name)?.scalar, ranged: a.index?.k === 'range' || a.index?.k === 'set' }));
    const width = Math.max(1, ...lists.filter((l) => l.reg || l.ranged).map((l) => l.qs.length));
    for (const l of lists) {
      if ((l.reg || l.ranged) && l.qs.length !== width) throw errorAt(s.pos, 'registers of different sizes in one gate call');
    }
    for (let i = 0; i < width; i++) {
      const qubits = lists.map((l) => (l.reg || l.ranged ? l.qs[i]! : l.qs[0]!));
      if (new Set(qubits).size !== qubits.length) throw errorAt(s.pos, `gate '${s.name}' uses the same qubit twice`);
      const items = this.modify(s.mods, ctrlCounts, 0, qubits, ctx, (qs) => this.instantiate(s.name, params, qs, ctx, s.pos));
      for (const it of items) ctx.emit(it.kind === 'gphase' || it.kind === 'barrier' ? it : withCond(it, ctx.cond));
    }
  }

  private signature(name: string, pos: Pos): { arity: number; nparams: number } {
    if (name === 'gphase') return { arity: 0, nparams: 1 };
    const g = this.gates.get(name) ?? this.opaque.get(name);
    if (g) return { arity: g.qubits.length, nparams: g.params.length };
    const std = gateInfo(name);
    if (std) return { arity: std.numQubits, nparams: std.numParams };
    throw errorAt(pos, `unknown gate '${name}'`);
  }

  private modify(mods: Modifier[], counts: number[], idx: number, qubits: number[], ctx: Ctx, base: (qs: number[]) => Item[]): Item[] {
    if (idx === mods.length) return base(qubits);
    const m = mods[idx]!;
    const inner = (qs: number[]): Item[] => this.modify(mods, counts, idx + 1, qs, ctx, base);
    try {
      switch (m.k) {
        case 'ctrl':
        case 'negctrl': {
          const n = counts[idx]!;
          const ctrls = qubits.slice(0, n);
          const body = addControls(inner(qubits.slice(n)), ctrls);
          if (m.k === 'ctrl') return body;
          const flips: Item[] = ctrls.map((q) => ({ kind: 'gate', name: 'x', qubits: [q], params: [] }));
          return [...flips, ...body, ...flips];
        }
        case 'inv':
          return invert(inner(qubits));
        case 'pow':
          return power(inner(qubits), evalExpr(m.e, this.lookup(ctx)));
      }
    } catch (err) {
      if (err instanceof QasmError) throw err;
      throw errorAt(m.pos, (err as Error).message);
    }
  }

  private instantiate(name: string, params: number[], qubits: number[], ctx: Ctx, pos: Pos): Item[] {
    if (name === 'gphase') return [{ kind: 'gphase', angle: params[0]! }];
    const user = this.gates.get(name);
    if (user?.body) {
      const out: Item[] = [];
      const scope = new Map(user.params.map((p, i) => [p, params[i]!]));
      const bind = new Map(user.qubits.map((q, i) => [q, qubits[i]!]));
      this.exec(user.body, { bind, scopes: [scope], emit: (it) => out.push(it), runtime: false, loopDepth: 0 });
      return out;
    }
    if (this.opaque.has(name)) return [{ kind: 'gate', name, qubits, params }];
    const canonical = canonicalGateName(name);
    if (!canonical) throw errorAt(pos, `unknown gate '${name}'`);
    // OpenQASM's built-in U is u3; stdgates' `U` alias maps to the same matrix.
    return [{ kind: 'gate', name: name === 'U' ? 'u3' : canonical, qubits, params }];
  }
}

function withCond<T extends Item>(it: T, cond: Condition | undefined): T {
  if (!cond || it.kind === 'gphase' || it.kind === 'barrier') return it;
  return { ...it, condition: cond };
}

export function elaborate(program: Program, opts: ElaborateOptions = {}): Circuit {
  return new Elaborator(program.version, opts.inputs ?? {}, opts.warnings ?? []).run(program.body);
}
