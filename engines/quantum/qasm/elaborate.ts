/**
 * Turns an OpenQASM syntax tree into the shared Circuit model: registers flattened in
 * declaration order, user gates inlined down to standard-table gates, modifiers applied,
 * loops unrolled and classical conditions attached to the operations they guard. This file
 * walks the statements; names, gates and control flow are resolved in the classes it extends.
 */
import type { Circuit } from '../circuit.ts';
import type { Program, Ref, Stmt } from './ast.ts';
import { withCond } from './conditions.ts';
import { errorAt } from './errors.ts';
import type { Pos } from './errors.ts';
import type { Item } from './modifiers.ts';
import { ControlFlow } from './elaborate-control.ts';
import type { Ctx } from './elaborate-symbols.ts';

export interface ElaborateOptions {
  /** Values for `input` parameters (OpenQASM 3). */
  inputs?: Record<string, number>;
  /** Receives a message for each input defect the parser repaired (see README: lenient measure). */
  warnings?: string[];
}

const INCLUDABLE = new Set(['qelib1.inc', 'stdgates.inc']);

class Elaborator extends ControlFlow {
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

  protected exec(stmts: Stmt[], ctx: Ctx): void {
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
      case 'vdecl':
        this.declareVar(s, ctx);
        return;
      case 'gatedef':
      case 'opaque':
        this.global(s, ctx, 'a gate definition');
        this.defineGate(s);
        return;
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
      case 'for':
        this.forStmt(s, ctx);
        return;
      case 'assign':
        this.assign(s, ctx);
        return;
    }
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
}

export function elaborate(program: Program, opts: ElaborateOptions = {}): Circuit {
  return new Elaborator(program.version, opts.inputs ?? {}, opts.warnings ?? []).run(program.body);
}
