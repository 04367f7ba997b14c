/**
 * Prints a Circuit as OpenQASM 2 or 3 text that this engine and other parsers read back.
 * Gates missing from qelib1.inc / stdgates.inc get a `gate` definition in the header.
 */
import type { Circuit, Condition, Operation, Register } from '../circuit.ts';
import { gateInfo } from '../gates.ts';
import { dimOf } from '../matrix.ts';

const QELIB1 = new Set([
  'u3', 'u2', 'u1', 'cx', 'id', 'u0', 'x', 'y', 'z', 'h', 's', 'sdg', 't', 'tdg', 'rx', 'ry', 'rz', 'cz', 'cy',
  'swap', 'ch', 'ccx', 'cswap', 'crx', 'cry', 'crz', 'cu1', 'cu3', 'rxx', 'rzz', 'rccx', 'rc3x', 'c3x', 'c3sqrtx', 'c4x',
]);
const STDGATES = new Set([
  'p', 'x', 'y', 'z', 'h', 's', 'sdg', 't', 'tdg', 'sx', 'rx', 'ry', 'rz', 'cx', 'cy', 'cz', 'cp', 'crx', 'cry', 'crz',
  'ch', 'swap', 'ccx', 'cswap', 'cu', 'id', 'u1', 'u2', 'u3',
]);

/** Definitions in terms of qelib1 gates (valid in both versions once their own dependencies exist). */
const DEFS: Record<string, { deps: string[]; text: string }> = {
  p: { deps: [], text: 'gate p(l) a { u1(l) a; }' },
  u: { deps: [], text: 'gate u(t,p,l) a { u3(t,p,l) a; }' },
  sx: { deps: [], text: 'gate sx a { sdg a; h a; sdg a; }' },
  sxdg: { deps: [], text: 'gate sxdg a { s a; h a; s a; }' },
  r: { deps: [], text: 'gate r(t,p) a { u3(t,p-pi/2,-p+pi/2) a; }' },
  cp: { deps: [], text: 'gate cp(l) a,b { cu1(l) a,b; }' },
  csx: { deps: [], text: 'gate csx a,b { h b; cu1(pi/2) a,b; h b; }' },
  cu: { deps: [], text: 'gate cu(t,p,l,g) a,b { u1(g) a; cu3(t,p,l) a,b; }' },
  iswap: { deps: [], text: 'gate iswap a,b { s a; s b; h a; cx a,b; cx b,a; h b; }' },
  dcx: { deps: [], text: 'gate dcx a,b { cx a,b; cx b,a; }' },
  rzx: { deps: [], text: 'gate rzx(t) a,b { h b; cx a,b; rz(t) b; cx a,b; h b; }' },
  ecr: { deps: ['rzx'], text: 'gate ecr a,b { rzx(pi/4) a,b; x a; rzx(-pi/4) a,b; }' },
  ryy: { deps: [], text: 'gate ryy(t) a,b { rx(pi/2) a; rx(pi/2) b; cx a,b; rz(t) b; cx a,b; rx(-pi/2) a; rx(-pi/2) b; }' },
  ccz: { deps: [], text: 'gate ccz a,b,c { h c; ccx a,b,c; h c; }' },
  cu1: { deps: [], text: 'gate cu1(l) a,b { u1(l/2) a; cx a,b; u1(-l/2) b; cx a,b; u1(l/2) b; }' },
  cu3: { deps: [], text: 'gate cu3(t,p,l) c,t { u1((l+p)/2) c; u1((l-p)/2) t; cx c,t; u3(-t/2,0,-(p+l)/2) t; cx c,t; u3(t/2,p,0) t; }' },
  rxx: { deps: [], text: 'gate rxx(t) a,b { h a; h b; cx a,b; rz(t) b; cx a,b; h a; h b; }' },
  rzz: { deps: [], text: 'gate rzz(t) a,b { cx a,b; u1(t) b; cx a,b; }' },
  u0: { deps: [], text: 'gate u0(g) a { id a; }' },
  c3x: { deps: [], text: 'gate c3x a,b,c,d { ctrl(3) @ x a,b,c,d; }' },
  c4x: { deps: [], text: 'gate c4x a,b,c,d,e { ctrl(4) @ x a,b,c,d,e; }' },
  c3sqrtx: { deps: [], text: 'gate c3sqrtx a,b,c,d { ctrl(3) @ sx a,b,c,d; }' },
  rccx: { deps: [], text: 'gate rccx a,b,c { u2(0,pi) c; u1(pi/4) c; cx b,c; u1(-pi/4) c; cx a,c; u1(pi/4) c; cx b,c; u1(-pi/4) c; u2(0,pi) c; }' },
  rc3x: {
    deps: [],
    text: 'gate rc3x a,b,c,d { u2(0,pi) d; u1(pi/4) d; cx c,d; u1(-pi/4) d; u2(0,pi) d; cx a,d; u1(pi/4) d; cx b,d; u1(-pi/4) d; cx a,d; u1(pi/4) d; cx b,d; u1(-pi/4) d; u2(0,pi) d; u1(pi/4) d; cx c,d; u1(-pi/4) d; u2(0,pi) d; }',
  },
};

/** OpenQASM 2 spellings of controlled table gates. */
const CONTROLLED_NAMES: Record<string, string> = {
  'x:1': 'cx', 'x:2': 'ccx', 'x:3': 'c3x', 'x:4': 'c4x', 'cx:1': 'ccx', 'cx:2': 'c3x', 'cx:3': 'c4x', 'ccx:1': 'c3x',
  'ccx:2': 'c4x', 'c3x:1': 'c4x', 'y:1': 'cy', 'z:1': 'cz', 'z:2': 'ccz', 'cz:1': 'ccz', 'h:1': 'ch', 'p:1': 'cp',
  'u1:1': 'cu1', 'rx:1': 'crx', 'ry:1': 'cry', 'rz:1': 'crz', 'u3:1': 'cu3', 'u:1': 'cu3', 'swap:1': 'cswap', 'sx:1': 'csx',
  'sx:3': 'c3sqrtx',
};

/** A number as text that parses back to exactly the same double (pi multiples kept readable). */
export function formatAngle(x: number): string {
  if (x === 0) return '0';
  for (const d of [1, 2, 3, 4, 6, 8, 16, 32, 64]) {
    const n = Math.round((x * d) / Math.PI);
    if (n === 0 || Math.abs(n) > 64) continue;
    if ((n * Math.PI) / d === x) {
      const num = n === 1 ? 'pi' : n === -1 ? '-pi' : `${n}*pi`;
      return d === 1 ? num : `${num}/${d}`;
    }
  }
  return String(x);
}

function zyz(m: Float64Array): [number, number, number, number] {
  // m = e^{ig} u3(t, p, l): |m00| = cos(t/2), |m10| = sin(t/2).
  const a = Math.hypot(m[0]!, m[1]!);
  const b = Math.hypot(m[4]!, m[5]!);
  const t = 2 * Math.atan2(b, a);
  const arg = (k: number): number => Math.atan2(m[2 * k + 1]!, m[2 * k]!);
  let g: number;
  let p: number;
  let l: number;
  if (a > 1e-12 && b > 1e-12) {
    g = arg(0);
    p = arg(2) - g;
    l = arg(1) - g - Math.PI;
  } else if (a > 1e-12) {
    g = arg(0);
    p = 0;
    l = arg(3) - g;
  } else {
    g = arg(1) - Math.PI;
    l = 0;
    p = arg(2) - g;
  }
  return [t, p, l, g];
}

class Emitter {
  readonly needed = new Set<string>();
  private readonly qname: string[] = [];
  private readonly cname: string[] = [];

  constructor(private readonly c: Circuit, private readonly version: 2 | 3) {
    const qregs: Register[] = c.qregs.length || !c.numQubits ? c.qregs : [{ name: 'q', size: c.numQubits, offset: 0 }];
    const cregs: Register[] = c.cregs.length || !c.numClbits ? c.cregs : [{ name: 'c', size: c.numClbits, offset: 0 }];
    for (const r of qregs) for (let i = 0; i < r.size; i++) this.qname[r.offset + i] = `${r.name}[${i}]`;
    for (const r of cregs) for (let i = 0; i < r.size; i++) this.cname[r.offset + i] = `${r.name}[${i}]`;
    this.qregs = qregs;
    this.cregs = cregs;
  }
  readonly qregs: Register[];
  readonly cregs: Register[];

  private useGate(name: string): void {
    const known = this.version === 2 ? QELIB1 : STDGATES;
    if (known.has(name) || this.needed.has(name)) return;
    const d = DEFS[name];
    if (!d) return;
    for (const dep of d.deps) this.useGate(dep);
    // The definitions written with ctrl @ (c3x, c4x, c3sqrtx) are needed only in version 3.
    this.needed.add(name);
  }

  private q(i: number): string {
    const s = this.qname[i];
    if (s === undefined) throw new Error(`qubit ${i} is outside the circuit's registers`);
    return s;
  }

  private gateLine(name: string, params: number[], qubits: number[], ctrls: number): string {
    const ps = params.length ? `(${params.map(formatAngle).join(',')})` : '';
    const args = qubits.map((x) => this.q(x)).join(',');
    if (ctrls === 0) {
      this.useGate(name);
      return `${name}${ps} ${args};`;
    }
    const alias = CONTROLLED_NAMES[`${name}:${ctrls}`];
    if (alias && gateInfo(alias)?.numParams === params.length) {
      this.useGate(alias);
      return `${alias}${ps} ${args};`;
    }
    if (this.version === 2) throw new Error(`'${name}' with ${ctrls} control(s) cannot be written in OpenQASM 2`);
    this.useGate(name);
    return `ctrl(${ctrls}) @ ${name}${ps} ${args};`;
  }

  private opLine(op: Exclude<Operation, { kind: 'barrier' }>): string[] {
    switch (op.kind) {
      case 'gate':
        return [this.gateLine(op.name, op.params, op.qubits, op.controls ?? 0)];
      case 'measure':
        return [this.version === 2 ? `measure ${this.q(op.qubit)} -> ${this.cname[op.clbit]};` : `${this.cname[op.clbit]} = measure ${this.q(op.qubit)};`];
      case 'reset':
        return [`reset ${this.q(op.qubit)};`];
      case 'unitary': {
        const k = Math.log2(dimOf(op.matrix));
        if (k === 1) {
          const [t, p, l, g] = zyz(op.matrix);
          const lines = [this.gateLine('u3', [t, p, l], op.qubits, 0)];
          if (this.version === 3 && g !== 0) lines.push(`gphase(${formatAngle(g)});`);
          return lines;
        }
        throw new Error(`a ${k}-qubit unitary ('${op.label}') cannot be written as OpenQASM; translate it to gates first`);
      }
    }
  }

  private conditioned(lines: string[], cond: Condition | undefined): string[] {
    if (!cond) return lines;
    const whole = this.cregs.find((r) => r.size === cond.clbits.length && cond.clbits.every((b, i) => b === r.offset + i));
    if (whole) {
      if (this.version === 2) return lines.map((l) => `if(${whole.name}==${cond.value}) ${l}`);
      return [`if (${whole.name} == ${cond.value}) { ${lines.join(' ')} }`];
    }
    if (this.version === 2) throw new Error('a condition on part of a classical register cannot be written in OpenQASM 2');
    let body = lines.join(' ');
    for (let j = cond.clbits.length - 1; j >= 0; j--) {
      body = `if (${this.cname[cond.clbits[j]!]} == ${(cond.value >> j) & 1}) { ${body} }`;
    }
    return [body];
  }

  body(): string[] {
    const out: string[] = [];
    for (const op of this.c.ops) {
      if (op.kind === 'barrier') {
        if (op.qubits.length) out.push(`barrier ${op.qubits.map((x) => this.q(x)).join(',')};`);
        continue;
      }
      out.push(...this.conditioned(this.opLine(op), op.condition));
    }
    if (this.version === 3 && this.c.globalPhase !== 0) out.push(`gphase(${formatAngle(this.c.globalPhase)});`);
    return out;
  }
}

/**
 * Print `circuit` as OpenQASM text of the given version.
 *
 * @example toQasm(parseQasm(src), 3) // 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q; ...'
 */
export function toQasm(circuit: Circuit, version: 2 | 3): string {
  const e = new Emitter(circuit, version);
  const body = e.body();
  const head = version === 2 ? ['OPENQASM 2.0;', 'include "qelib1.inc";'] : ['OPENQASM 3.0;', 'include "stdgates.inc";'];
  // Insertion order puts dependencies first (useGate adds them before the gate itself).
  const defs = [...e.needed].map((n) => DEFS[n]!.text);
  const regs: string[] = [];
  for (const r of e.qregs) regs.push(version === 2 ? `qreg ${r.name}[${r.size}];` : `qubit[${r.size}] ${r.name};`);
  for (const r of e.cregs) regs.push(version === 2 ? `creg ${r.name}[${r.size}];` : `bit[${r.size}] ${r.name};`);
  if (version === 2 && circuit.globalPhase !== 0) regs.push(`// global phase ${formatAngle(circuit.globalPhase)} (not expressible in OpenQASM 2)`);
  return [...head, ...defs, ...regs, ...body].join('\n') + '\n';
}
