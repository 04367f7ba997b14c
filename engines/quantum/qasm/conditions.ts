/**
 * Classical `if` conditions as sets of equality cases over measured bits, so that each case
 * becomes a Condition of the circuit model (`bits == value`). A condition on compile-time
 * values only is decided statically.
 */
import type { Condition } from '../circuit.ts';
import type { Expr, Ref } from './ast.ts';
import { errorAt } from './errors.ts';
import { evalExpr } from './expr.ts';
import type { Lookup } from './expr.ts';
import type { Item } from './modifiers.ts';

export interface CondEnv {
  isClassicalRef(name: string): boolean;
  clbits(ref: Ref): number[];
  lookup: Lookup;
  maxBits: number;
}

/** `else` is null when the complement is too large to enumerate (only a plain `if` is allowed then). */
export type CondCases = { static: boolean } | { static?: undefined; then: Condition[]; else: Condition[] | null };

function usesBits(e: Expr, env: CondEnv): boolean {
  switch (e.k) {
    case 'num':
      return false;
    case 'ref':
      return env.isClassicalRef(e.ref.name);
    case 'un':
      return usesBits(e.a, env);
    case 'bin':
      return usesBits(e.a, env) || usesBits(e.b, env);
    case 'call':
      return e.args.some((a) => usesBits(a, env));
  }
}

/** All values of `bits` satisfying (value == v) when eq, else (value != v). */
function cases(bits: number[], v: number, eq: boolean, env: CondEnv, e: Expr): { then: Condition[]; else: Condition[] | null } {
  const hit: Condition = { clbits: bits, value: v };
  if (bits.length > env.maxBits) {
    if (eq) return { then: [hit], else: null };
    throw errorAt(e.pos, `'!=' or a truth test on more than ${env.maxBits} bits is not supported`);
  }
  const inRange = v >= 0 && v < 2 ** bits.length && Number.isInteger(v);
  const others: Condition[] = [];
  for (let u = 0; u < 2 ** bits.length; u++) if (u !== v) others.push({ clbits: bits, value: u });
  const yes = inRange ? [hit] : [];
  return eq ? { then: yes, else: others } : { then: others, else: yes };
}

export function conditionCases(e: Expr, env: CondEnv): CondCases {
  if (!usesBits(e, env)) return { static: evalExpr(e, env.lookup) !== 0 };
  if (e.k === 'ref') {
    const bits = env.clbits(e.ref);
    // A bit or register used as a truth value: true when any bit is 1.
    return cases(bits, 0, false, env, e);
  }
  if (e.k === 'un' && e.op === '!') {
    const inner = conditionCases(e.a, env);
    if (inner.static !== undefined) return { static: !inner.static };
    if (inner.else === null) throw errorAt(e.pos, `negating a comparison of more than ${env.maxBits} bits is not supported`);
    return { then: inner.else, else: inner.then };
  }
  if (e.k === 'bin' && (e.op === '==' || e.op === '!=')) {
    let refSide: Expr = e.a;
    let valSide: Expr = e.b;
    if (refSide.k !== 'ref' || !env.isClassicalRef(refSide.ref.name)) {
      refSide = e.b;
      valSide = e.a;
    }
    if (refSide.k === 'ref' && env.isClassicalRef(refSide.ref.name) && !usesBits(valSide, env)) {
      const v = evalExpr(valSide, env.lookup);
      return cases(env.clbits(refSide.ref), v, e.op === '==', env, e);
    }
  }
  throw errorAt(e.pos, "unsupported condition: use a bit, a register, '!bit', or 'register == value' / '!='");
}

/** The conjunction of two conditions, or null when they contradict each other. */
export function mergeConditions(a: Condition | undefined, b: Condition): Condition | null {
  if (!a) return b;
  const bits = [...a.clbits];
  let value = a.value;
  for (let j = 0; j < b.clbits.length; j++) {
    const bit = b.clbits[j]!;
    const want = (b.value >> j) & 1;
    const at = bits.indexOf(bit);
    if (at >= 0) {
      if (((value >> at) & 1) !== want) return null;
    } else {
      bits.push(bit);
      value += want * 2 ** (bits.length - 1);
    }
  }
  return { clbits: bits, value };
}

/** Attaches the guarding condition to an operation; a global phase or barrier carries none. */
export function withCond<T extends Item>(it: T, cond: Condition | undefined): T {
  if (!cond || it.kind === 'gphase' || it.kind === 'barrier') return it;
  return { ...it, condition: cond };
}
