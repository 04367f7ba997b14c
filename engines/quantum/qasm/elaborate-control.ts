/**
 * Classical control flow during elaboration: `for` loops are unrolled, and an `if` is either
 * decided at compile time or turned into one condition per case of the measured bits, which
 * is attached to every operation the branch emits.
 */
import type { Condition } from '../circuit.ts';
import type { IndexItem, Stmt } from './ast.ts';
import { conditionCases, mergeConditions } from './conditions.ts';
import { errorAt } from './errors.ts';
import type { Pos } from './errors.ts';
import { evalExpr } from './expr.ts';
import { rangeValues } from './indices.ts';
import { GateElaborator } from './elaborate-gates.ts';
import type { Ctx } from './elaborate-symbols.ts';

/** Conditions are enumerated case by case: past this many bits the 2^n - 1 cases of a complement (`else`, `!=`) are refused. */
const MAX_CONDITION_BITS = 12;

export abstract class ControlFlow extends GateElaborator {
  protected forStmt(s: Extract<Stmt, { k: 'for' }>, ctx: Ctx): void {
    const values = this.iterate(s.iter, ctx, s.pos);
    const scope = new Map<string, number>();
    const inner: Ctx = { ...ctx, scopes: [...ctx.scopes, scope], loopDepth: ctx.loopDepth + 1 };
    for (const v of values) {
      scope.set(s.name, v);
      this.exec(s.body, inner);
    }
  }

  private iterate(iter: IndexItem, ctx: Ctx, pos: Pos): number[] {
    if (iter.k === 'range') return rangeValues(iter, this.lookup(ctx), pos);
    if (iter.k === 'set') return iter.items.map((e) => evalExpr(e, this.lookup(ctx)));
    throw errorAt(pos, "expected a range '[a:b]' or a set '{...}' to loop over");
  }

  protected ifStmt(s: Extract<Stmt, { k: 'if' }>, ctx: Ctx): void {
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
}
