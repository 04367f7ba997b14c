/**
 * Optimizer benchmark: average total-gate, two-qubit-gate and depth reduction per level on the
 * QASMBench fixtures and on the Nam et al. arithmetic/Toffoli suite, with run times. The
 * baseline (measured in the same run) is each input translated to the same basis at level 0,
 * so ratios compare like with like. Every output small enough for a statevector (<= 18
 * qubits used) is checked for equivalence with its input; wider ones are proven on decision
 * diagrams (engines/quantum/verify), which also give a second opinion on the narrow outputs
 * of level 3. Only where the diagram check is inconclusive are random basis inputs run
 * through a sparse simulation (evidence, not proof).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gateMatrix } from '../../engines/quantum/gates.ts';
import { parseQasm } from '../../engines/quantum/qasm/index.ts';
import type { Circuit } from '../../engines/quantum/circuit.ts';
import { equivalenceError, maxCheckQubits, splitTerminalMeasures } from '../../engines/quantum/optimizer/equivalence.ts';
import { counts, optimize } from '../../engines/quantum/optimizer/index.ts';
import { sparseCheck } from '../../engines/quantum/optimizer/sparse.ts';
import { getBackend } from '../../engines/quantum/backends.ts';
import { checkEquivalence, type DdCheckResult } from '../../engines/quantum/verify/equivalence.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const CHECK_QUBITS = maxCheckQubits();
const LEVELS = [0, 1, 2, 3] as const;

function fallback(name: string, params: number[]): Float64Array | null {
  try {
    return gateMatrix(name, params);
  } catch {
    return null;
  }
}

function load(dir: string): Array<{ name: string; circuit: Circuit }> {
  const out: Array<{ name: string; circuit: Circuit }> = [];
  for (const f of readdirSync(FIXTURES + dir).filter((x) => x.endsWith('.qasm')).sort()) {
    try {
      out.push({ name: f.replace(/\.qasm$/, ''), circuit: parseQasm(readFileSync(`${FIXTURES}${dir}/${f}`, 'utf8')) });
    } catch (err) {
      console.log(`  skipped ${f}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  return out;
}

/** Physical qubits a (possibly routed) circuit touches: the width its equivalence check needs. */
function usedQubits(c: Circuit): number {
  const used = new Set<number>();
  for (const op of c.ops) for (const q of op.kind === 'measure' || op.kind === 'reset' ? [op.qubit] : op.qubits) used.add(q);
  return Math.max(used.size, 1);
}

/** What the equivalence checks of one suite found. */
class Tally {
  dense = 0;
  dd = 0;
  failed = 0;
  inconclusive: string[] = [];
  unchecked = 0;
  sampled = 0;
  sampledBad = 0;
  ddMs = 0;
  ddMax = 0;
  ddRuns = 0;
  second = 0;
  secondAgree = 0;
  secondOpen = 0;

  record(name: string, level: number, r: DdCheckResult): void {
    this.ddMs += r.ms;
    this.ddMax = Math.max(this.ddMax, r.maxNodes);
    this.ddRuns++;
    if (r.verdict === 'not_equivalent') {
      this.failed++;
      console.log(`  NOT EQUIVALENT (decision diagram): ${name} at level ${level}: ${r.reason}`);
    } else if (r.verdict === 'inconclusive') this.inconclusive.push(`${name} L${level}: ${r.reason}`);
    else this.dd++;
  }
}

const pct = (before: number, after: number): number => (before === 0 ? 0 : (100 * (before - after)) / before);
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

interface SuiteOptions {
  basis: string[];
  couplingMap?: Array<[number, number]>;
  maxQubits?: number;
}

async function suite(title: string, dir: string, o: SuiteOptions): Promise<void> {
  const circuits = load(dir).filter((c) => !o.maxQubits || c.circuit.numQubits <= o.maxQubits);
  console.log(`\n${title}: ${circuits.length} circuits, basis {${o.basis}}${o.couplingMap ? `, coupling map of ${new Set(o.couplingMap.flat()).size} qubits` : ', all-to-all'}`);
  const base = new Map<string, ReturnType<typeof counts>>();
  const t = new Tally();
  for (const level of LEVELS) {
    const total: number[] = [];
    const two: number[] = [];
    const depth: number[] = [];
    let ms = 0;
    let sumGates = 0;
    let sumTwo = 0;
    for (const { name, circuit } of circuits) {
      const t0 = performance.now();
      const r = optimize(circuit, { level, basisGates: o.basis, couplingMap: o.couplingMap, matrixFallback: fallback });
      ms += performance.now() - t0;
      const k = counts(r.circuit);
      if (level === 0) base.set(name, k);
      const b = base.get(name) as ReturnType<typeof counts>;
      total.push(pct(b.gates, k.gates));
      two.push(pct(b.twoQubit, k.twoQubit));
      depth.push(pct(b.depth, k.depth));
      sumGates += k.gates;
      sumTwo += k.twoQubit;
      const width = usedQubits(r.circuit);
      const inSplit = splitTerminalMeasures(circuit);
      const outSplit = splitTerminalMeasures(r.circuit);
      const layout = { initialLayout: r.initialLayout, qubitMapping: r.qubitMapping, fallback };
      if (width <= CHECK_QUBITS && inSplit && outSplit) {
        const err = equivalenceError(circuit, r.circuit, layout);
        if (!(err < 1e-7)) {
          t.failed++;
          console.log(`  NOT EQUIVALENT: ${name} at level ${level} (error ${err})`);
        } else t.dense++;
        if (level === 3) {
          // A second opinion, kept short: these outputs are already decided.
          const d = checkEquivalence(circuit, r.circuit, { ...layout, maxNodes: 2e5, timeLimitMs: 10_000 });
          t.second++;
          if (d.verdict === 'inconclusive') t.secondOpen++;
          else if ((d.verdict === 'equivalent') === err < 1e-7) t.secondAgree++;
          else console.log(`  the checks disagree on ${name} at level 3: statevector error ${err}, decision diagram ${d.verdict} (${d.reason ?? ''})`);
        }
        continue;
      }
      const d = checkEquivalence(circuit, r.circuit, layout);
      t.record(name, level, d);
      if (d.verdict !== 'inconclusive') continue;
      if (inSplit && outSplit) {
        // Unitary but beyond the diagram budget: sample random basis inputs through a sparse
        // simulation (on the unitary parts; final measurements are compared above only).
        const err = sparseCheck(inSplit.unitary, outSplit.unitary, { ...layout, inputs: 4, limit: 1024 });
        if (err === null) t.unchecked++;
        else {
          t.sampled++;
          if (!(err < 1e-7)) {
            t.sampledBad++;
            console.log(`  DIFFERS on a sampled input: ${name} at level ${level} (error ${err})`);
          }
        }
      } else t.unchecked++;
    }
    console.log(
      `  level ${level}: gates ${sumGates} (-${mean(total).toFixed(1)} % avg), two-qubit ${sumTwo} (-${mean(two).toFixed(1)} % avg), depth -${mean(depth).toFixed(1)} % avg, ${ms.toFixed(0)} ms`,
    );
  }
  const outputs = circuits.length * LEVELS.length;
  console.log(`  equivalence: ${t.dense + t.dd}/${outputs} outputs proven equal to their input: ${t.dense} by statevector (<= ${CHECK_QUBITS} qubits), ${t.dd} by decision diagram`);
  console.log(`  decision diagrams: ${t.ddRuns} wide outputs in ${(t.ddMs / 1000).toFixed(1)} s, largest ${t.ddMax} nodes; second opinion on the ${t.second} narrow outputs of level 3: ${t.secondAgree} agree, ${t.secondOpen} inconclusive, ${t.second - t.secondAgree - t.secondOpen} disagree`);
  if (t.failed) console.log(`  NOT EQUIVALENT: ${t.failed}`);
  if (t.inconclusive.length) {
    console.log(`  inconclusive: ${t.inconclusive.length}`);
    for (const why of t.inconclusive) console.log(`    ${why}`);
  }
  if (t.sampled) console.log(`  of those: ${t.sampled - t.sampledBad}/${t.sampled} agree on 4 random basis inputs each (sparse simulation: evidence, not proof)`);
  if (t.unchecked) console.log(`  not checked at all: ${t.unchecked}`);
  console.log(`  every output proven equivalent: ${t.dense + t.dd === outputs ? 'yes' : 'no'}`);
}

export async function run(): Promise<void> {
  console.log('reductions are against level 0 (the same input only translated to the basis), averaged over circuits');
  await suite('Nam et al. arithmetic and Toffoli suite', 'nam', { basis: ['cx', 'h', 'rz', 'x'] });
  await suite('QASMBench small and medium', 'qasmbench', { basis: ['cx', 'rz', 'sx', 'x'] });
  const falcon = getBackend('lattice_falcon_27');
  if (falcon?.coupling_map) {
    await suite('QASMBench routed on lattice_falcon_27', 'qasmbench', { basis: ['cx', 'rz', 'sx', 'x'], couplingMap: falcon.coupling_map, maxQubits: 27 });
  }
}
