/**
 * Gate definitions and gate calls during elaboration: a call is checked against the gate's
 * signature, broadcast over whole registers, wrapped in its modifiers (ctrl, negctrl, inv,
 * pow) and expanded until only standard-table gates, opaque gates and global phases remain.
 */
import { canonicalGateName, gateInfo } from '../gates.ts';
import type { Modifier, Stmt } from './ast.ts';
import { withCond } from './conditions.ts';
import { QasmError, errorAt } from './errors.ts';
import type { Pos } from './errors.ts';
import { evalExpr, evalInt } from './expr.ts';
import { addControls, invert, power } from './modifiers.ts';
import type { Item } from './modifiers.ts';
import { Symbols } from './elaborate-symbols.ts';
import type { Ctx } from './elaborate-symbols.ts';

interface GateDefn {
  params: string[];
  qubits: string[];
  body?: Stmt[];
}

export abstract class GateElaborator extends Symbols {
  readonly gates = new Map<string, GateDefn>();
  readonly opaque = new Map<string, GateDefn>();

  /** Expanding a user gate runs its body through the statement walk. */
  protected abstract exec(stmts: Stmt[], ctx: Ctx): void;

  protected defineGate(s: Extract<Stmt, { k: 'gatedef' | 'opaque' }>): void {
    const std = gateInfo(s.name);
    // A definition of a standard gate with the standard arity keeps the table gate.
    if (std && std.numParams === s.params.length && std.numQubits === s.qubits.length) return;
    if (this.gates.has(s.name) || this.opaque.has(s.name)) throw errorAt(s.pos, `gate '${s.name}' is already defined`);
    const defn: GateDefn = { params: s.params, qubits: s.qubits };
    if (s.k === 'gatedef') {
      defn.body = s.body;
      this.gates.set(s.name, defn);
    } else this.opaque.set(s.name, defn);
  }

  protected call(s: Extract<Stmt, { k: 'call' }>, ctx: Ctx): void {
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
