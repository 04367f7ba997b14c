/**
 * Statevector benchmark: our simulator against the npm package `quantum-circuit` on GHZ, QFT
 * and layered random circuits (ratio of times); the native kernels against our JavaScript
 * kernels; random and QFT circuits at 20 to 28 qubits in double and single precision against
 * this machine's memory-bandwidth bound, and beside qsim itself when LATTICE_QSIM_BIN names a
 * built `qsim_base` (run interleaved with ours, same gates in the same order, amplitudes
 * checked); a 30-qubit run with its memory check; and 10^6 shots sampled from a 20-qubit
 * state. Every figure is measured in this run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Circuit } from '../../engines/quantum/circuit.ts';
import { ghzCircuit, qftCircuit, randomLayeredCircuit } from '../../engines/quantum/circuits.ts';
import { densityDistribution, getBackend, memoryRequiredBytes, run as runCircuit, simulateStatevector, toNoiseModel } from '../../engines/quantum/index.ts';
import { densityMatrixJs } from '../../engines/quantum/density/simulate.ts';
import { nativeStatevector } from '../../engines/quantum/native/index.ts';
import { releaseNative, runNative, simulationThreads, viewAsDouble } from '../../engines/quantum/statevector/native.ts';
import type { Precision } from '../../engines/quantum/statevector/state.ts';
import { unitaryJs } from '../../engines/quantum/statevector/simulate.ts';
import { memoryLimitBytes } from '../../engines/quantum/statevector/state.ts';
import { closeWorkerPool } from '../../engines/quantum/statevector/parallel.ts';

interface QcGate {
  addGate(name: string, column: number, wires: number | number[], opts?: { params: Record<string, number> }): void;
  run(): void;
  state: Record<string, { re: number; im: number }>;
}
type QcCtor = new (n: number) => QcGate;

const require = createRequire(import.meta.url);

function loadQuantumCircuit(): QcCtor {
  // quantum-circuit prints circular-dependency warnings on load; they are not ours.
  const emit = process.emitWarning;
  process.emitWarning = () => undefined;
  try {
    return require('quantum-circuit') as QcCtor;
  } finally {
    process.emitWarning = emit;
  }
}

function toQc(QC: QcCtor, c: Circuit): QcGate {
  const qc = new QC(c.numQubits);
  for (const op of c.ops) {
    if (op.kind !== 'gate') continue;
    const wires = op.qubits.length === 1 ? op.qubits[0]! : op.qubits;
    if (op.name === 'u3') qc.addGate('u3', -1, wires, { params: { theta: op.params[0]!, phi: op.params[1]!, lambda: op.params[2]! } });
    else if (op.name === 'cp') qc.addGate('cu1', -1, wires, { params: { lambda: op.params[0]! } });
    else qc.addGate(op.name, -1, wires);
  }
  return qc;
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return (performance.now() - t) / 1000;
}

/** Wall and CPU seconds (CPU of every thread of the process: on a busy machine it shows the work done). */
function timeCpu(fn: () => void): { wall: number; cpu: number } {
  const c = process.cpuUsage();
  const wall = time(fn);
  const d = process.cpuUsage(c);
  return { wall, cpu: (d.user + d.system) / 1e6 };
}

function maxDiff(ours: Float64Array, theirs: Record<string, { re: number; im: number }>): number {
  let d = 0;
  for (let i = 0; i < ours.length / 2; i++) {
    const t = theirs[String(i)] ?? { re: 0, im: 0 };
    d = Math.max(d, Math.abs(ours[2 * i]! - t.re), Math.abs(ours[2 * i + 1]! - t.im));
  }
  return d;
}

/** Seconds for one full read and write of a complex128 (or complex64) state of n qubits (best of 3). */
function bandwidthPass(n: number, precision: Precision = 'double'): number {
  const st = precision === 'single' ? new Float32Array(2 * 2 ** n) : new Float64Array(2 * 2 ** n);
  st.fill(1e-3);
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    best = Math.min(best, time(() => {
      for (let i = 0; i < st.length; i++) st[i] = st[i]! * 1.0000001;
    }));
  }
  return best;
}

const f = (x: number, d = 3): string => x.toFixed(d);

/** Measure every qubit into its own classical bit. */
function withMeasures(c: Circuit, n: number): void {
  c.numClbits = n;
  c.cregs = [{ name: 'c', size: n, offset: 0 }];
  for (let q = 0; q < n; q++) c.ops.push({ kind: 'measure', qubit: q, clbit: q });
}

export async function run(): Promise<void> {
  const QC = loadQuantumCircuit();
  const cases: Array<[string, (n: number) => Circuit, number[]]> = [
    ['ghz', ghzCircuit, [8, 12, 16]],
    ['qft', qftCircuit, [8, 12, 16]],
    ['random-d20', (n) => randomLayeredCircuit(n, 20, 7), [8, 12, 16]],
  ];
  console.log('\nstatevector vs quantum-circuit 0.9.250 (seconds; ratio = theirs / ours)');
  console.log('circuit       qubits  gates   ours      quantum-circuit  ratio    max |Δamp|');
  for (const [name, build, sizes] of cases) {
    for (const n of sizes) {
      const c = build(n);
      let sv: Float64Array = new Float64Array(0);
      // Best of several runs: small circuits take microseconds and a busy machine adds noise.
      let ours = Infinity;
      for (let r = 0; r < 5; r++) ours = Math.min(ours, time(() => (sv = simulateStatevector(c))));
      const qc = toQc(QC, c);
      const theirs = time(() => qc.run());
      console.log(`${name.padEnd(13)} ${String(n).padStart(6)}  ${String(c.ops.length).padStart(5)}   ${f(ours, 4).padStart(8)}  ${f(theirs).padStart(15)}  ${f(theirs / ours, 0).padStart(7)}  ${maxDiff(sv, qc.state).toExponential(1)}`);
    }
  }

  const native = nativeStatevector();
  console.log(`\nkernels: ${native ? 'native (C++, cache-blocked passes)' : 'JavaScript only: the native kernels are not built'}; threads: ${process.env.LATTICE_SIM_THREADS ?? 'all cores'}; load average at start ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`);
  if (native) {
    console.log('\nnative kernels vs our JavaScript kernels, 20 qubits (seconds)');
    console.log('circuit       native    javascript  ratio   max |Δamp|');
    for (const [name, c] of [['ghz', ghzCircuit(20)], ['qft', qftCircuit(20)], ['random-d20', randomLayeredCircuit(20, 20, 7)]] as const) {
      let nat: Float64Array = new Float64Array(0);
      let js: Float64Array = new Float64Array(0);
      const tn = Math.min(time(() => (nat = viewAsDouble(runNative(c.ops, 20)!)!)), time(() => (nat = viewAsDouble(runNative(c.ops, 20)!)!)));
      const tj = time(() => (js = unitaryJs(20, c.ops)));
      let d = 0;
      for (let i = 0; i < js.length; i++) d = Math.max(d, Math.abs(js[i]! - nat[i]!));
      console.log(`${name.padEnd(13)} ${f(tn).padStart(6)}  ${f(tj).padStart(10)}  ${f(tj / tn, 1).padStart(6)}  ${d.toExponential(1)}`);
    }
  }

  if (native) versusQsim();
  else console.log('\nno native kernels: the precision and qsim comparison is skipped');

  if (native) {
    console.log('\nnoisy simulation with lattice_falcon_27 calibration, random depth-5 circuits (seconds)');
    const noise = toNoiseModel(getBackend('lattice_falcon_27')!)!;
    const measured = (n: number): Circuit => {
      const c = randomLayeredCircuit(n, 5, 3);
      withMeasures(c, n);
      return c;
    };
    const c10 = measured(10);
    const jsDm = time(() => densityMatrixJs({ ...c10, ops: c10.ops.filter((o) => o.kind !== 'measure') }, noise));
    const natDm = time(() => densityDistribution(c10, noise));
    console.log(`density matrix, 10 qubits: native ${f(natDm)}, JavaScript ${f(jsDm)} (${f(jsDm / natDm, 1)}x)`);
    for (const n of [12, 14]) console.log(`density matrix, ${n} qubits: native ${f(time(() => densityDistribution(measured(n), noise)), 2)}`);
    const c12 = measured(12);
    const natTr = time(() => runCircuit(c12, { shots: 1000, seed: 2, noise }));
    console.log(`trajectories (256), 1000 shots, 12 qubits: native ${f(natTr, 2)}`);
    for (const n of [16, 20]) console.log(`trajectories (256), 1000 shots, ${n} qubits: native ${f(time(() => runCircuit(measured(n), { shots: 1000, seed: 2, noise })), 2)}`);
  }

  console.log('\n30 qubits: memory checked before the run, 1000 shots sampled from the final state');
  const need = memoryRequiredBytes('statevector', 30);
  const avail = memoryLimitBytes() * 0.9;
  console.log(`needs ${(need / 2 ** 30).toFixed(1)} GiB for the state; ${(avail / 2 ** 30).toFixed(1)} GiB may be used here`);
  if (process.env.LATTICE_BENCH_30 === '0') console.log('skipped (LATTICE_BENCH_30=0)');
  else if (need > avail) console.log('skipped: not enough memory on this machine');
  else {
    for (const [name, c] of [['ghz', ghzCircuit(30)], ['qft', qftCircuit(30)]] as const) {
      withMeasures(c, 30);
      let distinct = 0;
      const t = timeCpu(() => (distinct = Object.keys(runCircuit(c, { shots: 1000, seed: 5 }).counts).length));
      console.log(`${name}-30: ${f(t.wall, 1)} s wall, ${f(t.cpu, 1)} s cpu, ${distinct} distinct outcomes in 1000 shots (includes the first touch of 16 GiB)`);
    }
  }

  console.log('\nshots: 10^6 samples from a 20-qubit state');
  const c20 = randomLayeredCircuit(20, 4, 3);
  withMeasures(c20, 20);
  const simOnly = timeCpu(() => simulateStatevector({ ...c20, ops: c20.ops.filter((o) => o.kind !== 'measure') }));
  let distinct = 0;
  const total = timeCpu(() => {
    distinct = Object.keys(runCircuit(c20, { shots: 1_000_000, seed: 1 }).counts).length;
  });
  console.log(`simulate ${f(simOnly.wall)} s wall / ${f(simOnly.cpu)} s cpu; simulate + 10^6 shots ${f(total.wall)} s / ${f(total.cpu)} s; sampling alone ${f(total.wall - simOnly.wall)} s wall / ${f(total.cpu - simOnly.cpu)} s cpu; ${distinct} distinct outcomes`);
  await closeWorkerPool();
}

/**
 * A circuit in qsim's text format, and the global phase qsim's gates leave out: each u3(θ, φ,
 * λ) is rz(λ), ry(θ), rz(φ) there (qsim has no u3), which is u3 times e^{-i(φ+λ)/2}. Gates
 * keep their order; each layer's rotations take three time steps and its CX the fourth.
 */
function toQsim(c: Circuit): { text: string; phase: number } {
  const lines = [String(c.numQubits)];
  let phase = 0;
  let t = 0;
  let afterTwo = false;
  for (const op of c.ops) {
    if (op.kind !== 'gate') continue;
    const [q0, q1] = op.qubits;
    if (op.name === 'u3') {
      if (afterTwo) t += 4;
      afterTwo = false;
      const [theta, phi, lambda] = op.params as [number, number, number];
      lines.push(`${t} rz ${q0} ${lambda}`, `${t + 1} ry ${q0} ${theta}`, `${t + 2} rz ${q0} ${phi}`);
      phase += (phi + lambda) / 2;
    } else if (op.name === 'h') {
      // QFT: one gate per time step, in order.
      lines.push(`${++t} h ${q0}`);
    } else if (op.name === 'cp') {
      lines.push(`${++t} cp ${q0} ${q1} ${op.params[0]}`);
    } else if (op.name === 'swap') {
      lines.push(`${++t} sw ${q0} ${q1}`);
    } else if (op.name === 'cx') {
      lines.push(`${t + 3} cx ${q0} ${q1}`);
      afterTwo = true;
    } else throw new Error(`no qsim form for ${op.name}`);
  }
  return { text: lines.join('\n') + '\n', phase };
}

interface QsimRun {
  seconds: number;
  /** The first eight amplitudes, as qsim prints them (8 significant digits). */
  amps: Array<[number, number]>;
}

/** qsim_base on a circuit file: its own simulation time (gates only, after fusion) and first amplitudes. */
function runQsim(bin: string, file: string, threads: number, fuse: number): QsimRun {
  const out = execFileSync(bin, ['-c', file, '-t', String(threads), '-f', String(fuse), '-v', '2'], { encoding: 'utf8' });
  const grab = (re: RegExp): number => Number(re.exec(out)?.[1] ?? NaN);
  const seconds = grab(/simu time is ([\d.e+-]+)/) + grab(/fuse time is ([\d.e+-]+)/);
  const amps = [...out.matchAll(/^[01]+:\s+(\S+)\s+(\S+)\s+\S+$/gm)].map((m) => [Number(m[1]), Number(m[2])] as [number, number]);
  return { seconds, amps };
}

/**
 * Random depth-20 (u3 + CX layers) and QFT circuits, 20 to 28 qubits: our native kernels in
 * double and in single precision, and qsim (complex64, AVX and OpenMP as built) when
 * LATTICE_QSIM_BIN names its `qsim_base`, run one after the other in each round so that all
 * three see the same load. Ours: planning, allocation and the run. qsim's: fusion and the run
 * (its state is allocated before its clock starts). The bound: one full read and write of the
 * state per gate (the cost of simulating gate by gate), measured here per precision.
 */
function versusQsim(): void {
  const bin = process.env.LATTICE_QSIM_BIN;
  const qsim = bin && existsSync(bin) ? bin : null;
  const fuse = Number(process.env.LATTICE_QSIM_FUSE ?? 4);
  const threads = simulationThreads();
  const sizes = (process.env.LATTICE_BENCH_SIM_SIZES ?? '20,24,26,28').split(',').map(Number);
  const dir = mkdtempSync(join(tmpdir(), 'lattice-qsim-'));
  // Issue 23's figures: double against qsim on this machine when idle, before single precision existed.
  const before: Record<string, number> = { 'random-d20 20': 5.45, 'random-d20 24': 2.13, 'random-d20 26': 1.81, 'qft 24': 1.0 };
  console.log(`\ndouble and single precision vs the memory-bandwidth bound${qsim ? ` and qsim (${qsim}, -f ${fuse})` : ' (set LATTICE_QSIM_BIN to a built qsim_base for the qsim column)'}; ${threads} threads, best of the rounds`);
  console.log('bound = gates x one full read+write of the state in that precision; Δ = max |amp - qsim amp| over the first 8 amplitudes (qsim prints 8 digits)');
  console.log('circuit     qubits gates passes  double (s) /bound  single (s) /bound  qsim (s)  double/qsim  single/qsim  before  max|single-double|  Δ qsim');
  try {
    for (const n of sizes) {
      const need = 16 * 2 ** n + (qsim ? 8 * 2 ** n : 0);
      if (need > memoryLimitBytes() * 0.6) {
        console.log(`${n} qubits: skipped (needs ${(need / 2 ** 30).toFixed(1)} GiB for both states)`);
        continue;
      }
      const passD = bandwidthPass(n, 'double');
      const passS = bandwidthPass(n, 'single');
      const rounds = n <= 24 ? 3 : n <= 26 ? 2 : 1;
      for (const [name, c] of [['random-d20', randomLayeredCircuit(n, 20, 7)], ['qft', qftCircuit(n)]] as const) {
        const q = qsim ? toQsim(c) : null;
        const file = join(dir, `${name}-${n}.qsim`);
        if (q) writeFileSync(file, q.text);
        let td = Infinity;
        let ts = Infinity;
        let tq = Infinity;
        let passes = 0;
        let dsd = 0;
        let dq = NaN;
        for (let r = 0; r < rounds; r++) {
          const t0 = performance.now();
          const d = runNative(c.ops, n)!;
          td = Math.min(td, (performance.now() - t0) / 1000);
          const t1 = performance.now();
          const s = runNative(c.ops, n, { precision: 'single' })!;
          ts = Math.min(ts, (performance.now() - t1) / 1000);
          passes = s.passes;
          if (r === 0 && d.view && s.view) {
            for (let i = 0; i < d.view.length; i++) dsd = Math.max(dsd, Math.abs(d.view[i]! - s.view[i]!));
          }
          if (q) {
            const out = runQsim(qsim!, file, threads, fuse);
            tq = Math.min(tq, out.seconds);
            if (r === 0 && d.view) dq = phaseDiff(d.view, out.amps, q.phase);
          }
          releaseNative(d);
          releaseNative(s);
        }
        const ref = before[`${name} ${n}`];
        const cols = [
          name.padEnd(11), String(n).padStart(6), String(c.ops.length).padStart(5), String(passes).padStart(6),
          f(td, 3).padStart(11), f(td / (c.ops.length * passD), 2).padStart(6),
          f(ts, 3).padStart(11), f(ts / (c.ops.length * passS), 2).padStart(6),
          (q ? f(tq, 3) : '-').padStart(9), (q ? f(td / tq, 2) : '-').padStart(12), (q ? f(ts / tq, 2) : '-').padStart(12),
          (ref ? f(ref, 2) : '-').padStart(7), dsd.toExponential(1).padStart(19), (q ? dq.toExponential(1) : '-').padStart(7),
        ];
        console.log(cols.join(' '));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`load average after: ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${availableParallelism()} cores`);
}

/** Largest difference between our first amplitudes and qsim's, once qsim's left-out global phase is put back. */
function phaseDiff(ours: Float64Array | Float32Array, amps: Array<[number, number]>, phase: number): number {
  const c = Math.cos(phase);
  const s = Math.sin(phase);
  let d = 0;
  amps.forEach(([re, im], i) => {
    d = Math.max(d, Math.abs(ours[2 * i]! - (re * c - im * s)), Math.abs(ours[2 * i + 1]! - (re * s + im * c)));
  });
  return amps.length === 0 ? NaN : d;
}
