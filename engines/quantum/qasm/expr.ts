/** Compile-time evaluation of OpenQASM expressions (angles, sizes, indices, loop bounds). */
import type { Expr } from './ast.ts';
import { errorAt } from './errors.ts';

/** Resolves a bare name to a compile-time number, or undefined when it is not one. */
export type Lookup = (name: string) => number | undefined;

const CONSTANTS: Record<string, number> = {
  pi: Math.PI,
  'π': Math.PI,
  tau: 2 * Math.PI,
  'τ': 2 * Math.PI,
  euler: Math.E,
  'ℯ': Math.E,
};

const FUNCTIONS: Record<string, (...x: number[]) => number> = {
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  exp: Math.exp,
  ln: Math.log,
  log: Math.log,
  sqrt: Math.sqrt,
  arcsin: Math.asin,
  arccos: Math.acos,
  arctan: Math.atan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  abs: Math.abs,
  floor: Math.floor,
  ceiling: Math.ceil,
  ceil: Math.ceil,
  pow: Math.pow,
  mod: (a, b) => a - b * Math.floor(a / b),
  // Casts: OpenQASM 3 `int(x)` truncates, `float(x)` and `angle(x)` keep the value.
  int: Math.trunc,
  uint: Math.trunc,
  float: (x) => x,
  angle: (x) => x,
  bool: (x) => (x ? 1 : 0),
};

export function evalExpr(e: Expr, lookup: Lookup): number {
  switch (e.k) {
    case 'num':
      return e.value;
    case 'ref': {
      if (e.ref.index) throw errorAt(e.pos, `'${e.ref.name}[...]' is not a compile-time value`);
      const v = lookup(e.ref.name);
      if (v !== undefined) return v;
      const c = CONSTANTS[e.ref.name];
      if (c !== undefined) return c;
      throw errorAt(e.pos, `unknown identifier '${e.ref.name}' (expected a parameter, constant or loop variable)`);
    }
    case 'un': {
      const a = evalExpr(e.a, lookup);
      if (e.op === '-') return -a;
      if (e.op === '+') return a;
      if (e.op === '!') return a ? 0 : 1;
      return ~a;
    }
    case 'call': {
      const f = FUNCTIONS[e.fn];
      if (!f) throw errorAt(e.pos, `unknown function '${e.fn}'`);
      const args = e.args.map((x) => evalExpr(x, lookup));
      const arity = e.fn === 'pow' || e.fn === 'mod' ? 2 : 1;
      if (args.length !== arity) throw errorAt(e.pos, `'${e.fn}' takes ${arity} argument(s), got ${args.length}`);
      return f(...args);
    }
    case 'bin': {
      const a = evalExpr(e.a, lookup);
      const b = evalExpr(e.b, lookup);
      switch (e.op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': return a / b;
        case '%': return a % b;
        case '**': return a ** b;
        case '==': return a === b ? 1 : 0;
        case '!=': return a !== b ? 1 : 0;
        case '<': return a < b ? 1 : 0;
        case '>': return a > b ? 1 : 0;
        case '<=': return a <= b ? 1 : 0;
        case '>=': return a >= b ? 1 : 0;
        case '&&': return a && b ? 1 : 0;
        case '||': return a || b ? 1 : 0;
        case '&': return a & b;
        case '|': return a | b;
        case '^': return a ^ b;
        case '<<': return a << b;
        case '>>': return a >> b;
        default: throw errorAt(e.pos, `unsupported operator '${e.op}'`);
      }
    }
  }
}

/** Evaluate and require a non-negative integer (sizes, indices, control counts). */
export function evalInt(e: Expr, lookup: Lookup, what: string): number {
  const v = evalExpr(e, lookup);
  if (!Number.isInteger(v)) throw errorAt(e.pos, `expected an integer ${what}, got ${v}`);
  return v;
}
