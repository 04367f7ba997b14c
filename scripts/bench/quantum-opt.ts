/**
 * Optimizer benchmark: average total-gate, two-qubit-gate and depth reduction per level on the
 * QASMBench fixtures and on the Nam et al. arithmetic/Toffoli suite, with run times. The
 * baseline (measured in the same run) is each input translated to the same basis at level 0,
 * so ratios compare like with like. Every output small enough for a statevector (<= 18
 * qubits used) is checked for equivalence with its input; wider ones are proven on path sums,
 * then on phase-affine forms (circuits that are phase polynomials up to H on fixed wires, as
 * the GF(2) multipliers are), then on decision diagrams (engines/quantum/verify); two give a
 * second opinion on the narrow outputs of level 3. Only where neither decides are random basis
 * inputs run through a sparse simulation (evidence, not proof).
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
import { checkPathSum } from '../../engines/quantum/verify/pathsum-check.ts';
import { checkPhaseAffine } from '../../engines/quantum/verify/phase-affine.ts';
import { karatsubaMultipliers, productForms } from '../../engines/quantum/optimizer/karatsuba.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const CHECK_QUBITS = maxCheckQubits();
// QUANTUM_OPT_LEVELS=0,3 runs only those levels (level 0, the baseline, always runs).
const LEVELS = ([0, 1, 2, 3] as Array<0 | 1 | 2 | 3>).filter((l) => l === 0 || !process.env.QUANTUM_OPT_LEVELS || process.env.QUANTUM_OPT_LEVELS.split(',').includes(String(l)));

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
  pathSum = 0;
  pathSumMs = 0;
  phaseAffine = 0;
  phaseAffineMs = 0;
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
  secondPathAgree = 0;
  secondPathOpen = 0;

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

/** One circuit's level-3 result, for the per-circuit table. */
interface Row {
  name: string;
  before: ReturnType<typeof counts>;
  after: ReturnType<typeof counts>;
  ms: number;
  proof: string;
  /** For a GF(2) multiplier: level 3 with its products as written (multipliers: false), and its time. */
  gateLevel?: { after: ReturnType<typeof counts>; ms: number };
}

async function suite(title: string, dir: string, o: SuiteOptions): Promise<Row[]> {
  const rows: Row[] = [];
  // QUANTUM_OPT_CIRCUITS=tof_3,gf2^4_mult runs only those circuits (names as in the table).
  const only = process.env.QUANTUM_OPT_CIRCUITS?.split(',');
  const circuits = load(dir).filter((c) => (!o.maxQubits || c.circuit.numQubits <= o.maxQubits) && (!only || only.includes(c.name)));
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
      const took = performance.now() - t0;
      ms += took;
      const k = counts(r.circuit);
      if (level === 0) base.set(name, k);
      const b = base.get(name) as ReturnType<typeof counts>;
      const row: Row = { name, before: b, after: k, ms: took, proof: 'none' };
      if (level === 3) {
        rows.push(row);
        // What the gate-level passes alone give a multiplier (Karatsuba's products are arithmetic,
        // which the published optimizers do not rewrite): the figure to compare with theirs.
        if (!o.couplingMap && process.env.QUANTUM_OPT_GATE_LEVEL !== '0' && karatsubaMultipliers(circuit, productForms(false)).length) {
          const g0 = performance.now();
          const g = optimize(circuit, { level, basisGates: o.basis, matrixFallback: fallback, multipliers: false });
          row.gateLevel = { after: counts(g.circuit), ms: performance.now() - g0 };
        }
      }
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
          row.proof = 'DIFFERS';
          console.log(`  NOT EQUIVALENT: ${name} at level ${level} (error ${err})`);
        } else {
          t.dense++;
          row.proof = 'statevector';
        }
        if (level === 3) {
          // A second opinion, kept short: these outputs are already decided.
          const d = checkEquivalence(circuit, r.circuit, { ...layout, maxNodes: 2e5, timeLimitMs: 10_000 });
          t.second++;
          if (d.verdict === 'inconclusive') t.secondOpen++;
          else if ((d.verdict === 'equivalent') === err < 1e-7) t.secondAgree++;
          else console.log(`  the checks disagree on ${name} at level 3: statevector error ${err}, decision diagram ${d.verdict} (${d.reason ?? ''})`);
          const ps = checkPathSum(circuit, r.circuit, layout);
          if (ps.verdict === 'inconclusive') t.secondPathOpen++;
          else if ((ps.verdict === 'equivalent') === err < 1e-7) t.secondPathAgree++;
          else console.log(`  the checks disagree on ${name} at level 3: statevector error ${err}, path sum ${ps.verdict} (${ps.reason ?? ''})`);
        }
        continue;
      }
      // Path sums first (they do not grow with the width on these circuits); the diagrams
      // decide what they cannot.
      const ps = checkPathSum(circuit, r.circuit, layout);
      t.pathSumMs += ps.ms;
      if (ps.verdict === 'equivalent') {
        t.pathSum++;
        row.proof = 'path sum';
        continue;
      }
      // Phase-affine up to H (the multipliers, whatever parities their products are written in).
      const pa = checkPhaseAffine(circuit, r.circuit, layout);
      t.phaseAffineMs += pa.ms;
      if (pa.verdict === 'equivalent') {
        t.phaseAffine++;
        row.proof = 'phase-affine';
        continue;
      }
      if (pa.verdict === 'not_equivalent') {
        t.failed++;
        row.proof = 'DIFFERS';
        console.log(`  NOT EQUIVALENT (phase-affine): ${name} at level ${level}: ${pa.reason}`);
        continue;
      }
      const d = checkEquivalence(circuit, r.circuit, layout);
      t.record(name, level, d);
      row.proof = d.verdict === 'equivalent' ? 'decision diagram' : d.verdict === 'not_equivalent' ? 'DIFFERS' : 'inconclusive';
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
  const proven = t.dense + t.pathSum + t.phaseAffine + t.dd;
  console.log(`  equivalence: ${proven}/${outputs} outputs proven equal to their input: ${t.dense} by statevector (<= ${CHECK_QUBITS} qubits), ${t.pathSum} by path sum (${(t.pathSumMs / 1000).toFixed(1)} s), ${t.phaseAffine} by phase-affine form (${(t.phaseAffineMs / 1000).toFixed(1)} s), ${t.dd} by decision diagram`);
  console.log(`  decision diagrams: ${t.ddRuns} wide outputs in ${(t.ddMs / 1000).toFixed(1)} s, largest ${t.ddMax} nodes; second opinion on the ${t.second} narrow outputs of level 3: ${t.secondAgree} agree, ${t.secondOpen} inconclusive, ${t.second - t.secondAgree - t.secondOpen} disagree`);
  console.log(`  path sums as second opinion on those: ${t.secondPathAgree} agree, ${t.secondPathOpen} inconclusive, ${t.second - t.secondPathAgree - t.secondPathOpen} disagree`);
  if (t.failed) console.log(`  NOT EQUIVALENT: ${t.failed}`);
  if (t.inconclusive.length) {
    console.log(`  inconclusive: ${t.inconclusive.length}`);
    for (const why of t.inconclusive) console.log(`    ${why}`);
  }
  if (t.sampled) console.log(`  of those: ${t.sampled - t.sampledBad}/${t.sampled} agree on 4 random basis inputs each (sparse simulation: evidence, not proof)`);
  if (t.unchecked) console.log(`  not checked at all: ${t.unchecked}`);
  console.log(`  every output proven equivalent: ${proven === outputs ? 'yes' : 'no'}`);
  return rows;
}

/**
 * Level 3 on the Nam suite before the parity-network, H-phase and relative-phase Toffoli
 * passes (measured on this machine with the same basis): [gates, two-qubit gates].
 */
const EARLIER: Record<string, [number, number]> = {
  adder_8: [620, 313], barenco_tof_10: [290, 156], barenco_tof_3: [38, 16], barenco_tof_4: [74, 36],
  barenco_tof_5: [110, 56], csla_mux_3: [158, 74], csum_mux_9: [330, 164], 'gf2^10_mult': [1061, 609],
  'gf2^16_mult': [2685, 1581], 'gf2^32_mult': [10566, 6299], 'gf2^4_mult': [183, 99], 'gf2^5_mult': [287, 154],
  'gf2^64_mult': [41484, 24765], 'gf2^6_mult': [398, 221], 'gf2^7_mult': [543, 300], 'gf2^8_mult': [699, 405],
  'gf2^9_mult': [879, 494], mod5_4: [49, 26], mod_adder_1024: [2572, 1224], mod_mult_55: [98, 40],
  mod_red_21: [193, 79], qcla_adder_10: [407, 193], qcla_com_7: [283, 132], qcla_mod_7: [630, 298],
  rc_adder_6: [148, 71], tof_10: [175, 70], tof_3: [35, 14], tof_4: [55, 22], tof_5: [75, 30], vbe_adder_3: [89, 50],
};

/**
 * Level 3 on the Nam suite in the previous round, before the multipliers were written with
 * Karatsuba's products (-33.4 % total and -27.2 % two-qubit on average; every output proven):
 * [gates, two-qubit].
 */
const PREVIOUS: Record<string, [number, number]> = {
  adder_8: [537, 259], barenco_tof_10: [258, 124], barenco_tof_3: [36, 14], barenco_tof_4: [66, 28], barenco_tof_5: [98, 44], csla_mux_3: [147, 70], csum_mux_9: [250, 112], 'gf2^10_mult': [971, 537], 'gf2^16_mult': [2437, 1363], 'gf2^32_mult': [9574, 5369], 'gf2^4_mult': [171, 93], 'gf2^5_mult': [267, 142], 'gf2^64_mult': [37452, 20859], 'gf2^6_mult': [368, 201], 'gf2^7_mult': [501, 270], 'gf2^8_mult': [643, 363], 'gf2^9_mult': [807, 438], mod5_4: [27, 14], mod_adder_1024: [2328, 980], mod_mult_55: [85, 37], mod_red_21: [177, 74], qcla_adder_10: [389, 175], qcla_com_7: [256, 118], qcla_mod_7: [622, 290], rc_adder_6: [138, 69], tof_10: [159, 54], tof_3: [33, 12], tof_4: [51, 18], tof_5: [69, 24], vbe_adder_3: [78, 39],
};

/** Published averages on this suite (total gates; two-qubit where reported). */
const PUBLISHED: Array<[string, string]> = [
  ['VOQC', '-17.7 % total'],
  ['Quartz', 'about -28.3 to -28.7 % total'],
  ['Queso', '-31.0 % total'],
  ['Quarl', '-35.2 % total'],
  ['Quasar', '-33.5 % total, -20.2 % two-qubit (geometric means)'],
];

const geoReduction = (pairs: Array<[number, number]>): number => {
  // 1 - geometric mean of after/before; a circuit reduced to nothing counts as a ratio of 1e-3.
  const logs = pairs.map(([b, a]) => Math.log(b === 0 ? 1 : Math.max(a / b, 1e-3)));
  return 100 * (1 - Math.exp(mean(logs)));
};

/** The per-circuit level-3 table beside the earlier figures and the published averages. */
function table(rows: Row[]): void {
  console.log('\n  Nam suite, level 3, per circuit (reductions against the input with each ccz as 7 T-type and 6 CX; earlier: before the level-3 passes, prev: the previous round):');
  const head = ['circuit', 'input', 'earlier', 'prev', 'now', 'total', '2q in', 'earlier', 'prev', 'now', '2q', 'time', 'proof'];
  const w = [16, 6, 7, 6, 6, 8, 6, 7, 6, 6, 8, 9, 16];
  const line = (cells: string[]): string => '  ' + cells.map((c, i) => (i === 0 || i === 12 ? c.padEnd(w[i]) : c.padStart(w[i]))).join(' ');
  console.log(line(head));
  const pc = (x: number): string => `${x <= 0 ? '' : '-'}${Math.abs(x).toFixed(1)} %`;
  let worse = 0;
  let worsePrevious = 0;
  let slowest = 0;
  for (const r of rows) {
    const e = EARLIER[r.name];
    if (e && (r.after.gates > e[0] || r.after.twoQubit > e[1])) worse++;
    const p = PREVIOUS[r.name];
    if (p && (r.after.gates > p[0] || r.after.twoQubit > p[1])) worsePrevious++;
    slowest = Math.max(slowest, r.ms);
    console.log(line([
      r.name, String(r.before.gates), e ? String(e[0]) : '-', p ? String(p[0]) : '-', String(r.after.gates), pc(pct(r.before.gates, r.after.gates)),
      String(r.before.twoQubit), e ? String(e[1]) : '-', p ? String(p[1]) : '-', String(r.after.twoQubit), pc(pct(r.before.twoQubit, r.after.twoQubit)),
      `${(r.ms / 1000).toFixed(2)} s`, r.proof,
    ]));
  }
  const known = rows.filter((r) => EARLIER[r.name]);
  const avg = (f: (r: Row) => number): string => mean(rows.map(f)).toFixed(1);
  console.log(`  average: total -${avg((r) => pct(r.before.gates, r.after.gates))} %, two-qubit -${avg((r) => pct(r.before.twoQubit, r.after.twoQubit))} % ` +
    `(earlier -${mean(known.map((r) => pct(r.before.gates, EARLIER[r.name][0]))).toFixed(1)} %, -${mean(known.map((r) => pct(r.before.twoQubit, EARLIER[r.name][1]))).toFixed(1)} %)`);
  console.log(`  geometric mean: total -${geoReduction(rows.map((r) => [r.before.gates, r.after.gates])).toFixed(1)} %, two-qubit -${geoReduction(rows.map((r) => [r.before.twoQubit, r.after.twoQubit])).toFixed(1)} % ` +
    `(earlier -${geoReduction(known.map((r) => [r.before.gates, EARLIER[r.name][0]])).toFixed(1)} %, -${geoReduction(known.map((r) => [r.before.twoQubit, EARLIER[r.name][1]])).toFixed(1)} %)`);
  const prev = rows.filter((r) => PREVIOUS[r.name]);
  console.log(`  previous round: total -${mean(prev.map((r) => pct(r.before.gates, PREVIOUS[r.name][0]))).toFixed(1)} %, two-qubit -${mean(prev.map((r) => pct(r.before.twoQubit, PREVIOUS[r.name][1]))).toFixed(1)} %; worse than it: ${worsePrevious}`);
  console.log(`  worse than earlier: ${worse}; slowest circuit ${(slowest / 1000).toFixed(1)} s; proven equivalent: ${rows.filter((r) => ['statevector', 'path sum', 'phase-affine', 'decision diagram'].includes(r.proof)).length}/${rows.length}`);
  const multipliers = rows.filter((r) => r.gateLevel);
  if (multipliers.length) {
    console.log(`\n  GF(2) multipliers written with Karatsuba's products (the gain is arithmetic; gate level: the same level 3 with multipliers: false):`);
    for (const r of multipliers) {
      const g = r.gateLevel!;
      const used = r.after.gates < g.after.gates || r.after.twoQubit < g.after.twoQubit ? 'Karatsuba' : 'gate level (kept)';
      console.log(`    ${r.name.padEnd(14)} gate level ${String(g.after.gates).padStart(6)} (${pc(pct(r.before.gates, g.after.gates))}, ${g.after.twoQubit} 2q, ${(g.ms / 1000).toFixed(1)} s) -> now ${String(r.after.gates).padStart(6)} (${pc(pct(r.before.gates, r.after.gates))}, ${r.after.twoQubit} 2q): ${used}`);
    }
    const gateLevel = (r: Row): ReturnType<typeof counts> => r.gateLevel?.after ?? r.after;
    console.log(`  gate level only (every circuit's products as written): total -${avg((r) => pct(r.before.gates, gateLevel(r).gates))} %, two-qubit -${avg((r) => pct(r.before.twoQubit, gateLevel(r).twoQubit))} %; ` +
      `geometric -${geoReduction(rows.map((r) => [r.before.gates, gateLevel(r).gates])).toFixed(1)} %, -${geoReduction(rows.map((r) => [r.before.twoQubit, gateLevel(r).twoQubit])).toFixed(1)} %`);
  }
  console.log('  published averages on this suite (gate-level rewriting):');
  for (const [tool, figure] of PUBLISHED) console.log(`    ${tool.padEnd(8)} ${figure}`);
}

export async function run(): Promise<void> {
  console.log('reductions are against level 0 (the same input only translated to the basis), averaged over circuits');
  // QUANTUM_OPT_SUITES=nam (or qasmbench, falcon) runs only those suites.
  const only = process.env.QUANTUM_OPT_SUITES?.split(',');
  const want = (name: string): boolean => !only || only.includes(name);
  if (want('nam')) table(await suite('Nam et al. arithmetic and Toffoli suite', 'nam', { basis: ['cx', 'h', 'rz', 'x'] }));
  if (want('qasmbench')) await suite('QASMBench small and medium', 'qasmbench', { basis: ['cx', 'rz', 'sx', 'x'] });
  const falcon = getBackend('lattice_falcon_27');
  if (falcon?.coupling_map && want('falcon')) {
    await suite('QASMBench routed on lattice_falcon_27', 'qasmbench', { basis: ['cx', 'rz', 'sx', 'x'], couplingMap: falcon.coupling_map, maxQubits: 27 });
  }
}
