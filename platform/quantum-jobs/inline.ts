/**
 * Which tasks the pool runs on the calling thread instead of a worker. A worker costs two
 * messages and a thread's wake-up each way (about 0.5-0.7 ms of a Bell job's 5 ms through
 * HTTP, measured), while a small circuit's own work is a tenth of a millisecond. The test
 * below is a bound on the work read off the text without parsing it: OpenQASM 2 (no loops),
 * no gate definitions (no nested expansion), few qubits and classical bits declared in plain
 * `qreg`/`creg` statements, a short text, an ideal simulator (no routing, no noise) and an
 * optimization level below 3, and at most INLINE_OPERATIONS operations as the text bounds them.
 * What passes takes a few milliseconds in the worst case measured, about 0.1 ms for a Bell
 * circuit. Anything else runs on a worker, as before.
 */
import { readBackend } from '../../engines/quantum/backends.ts';
import type { CircuitTask } from './task.ts';

/** Longest circuit text (of the submitted circuit and of its optimized form) run inline. */
export const INLINE_TEXT_CHARS = 1024;
/** Most qubits declared. */
export const INLINE_QUBITS = 10;
/** Most classical bits declared (each shot's outcome is a string of them). */
const INLINE_CLBITS = 32;
/** Most shots (sampling is linear in them). */
export const INLINE_SHOTS = 10_000;
/**
 * Most operations the text can expand to, bounded as its statements times its largest
 * register (without gate definitions a statement is at most one operation per qubit of a
 * register it broadcasts over). The worst texts measured at this bound (ccx chains, gates
 * broadcast over two 5-qubit registers, u3 layers; 10 qubits, 10,000 shots with memory)
 * prepared in 1-7 ms and ran in 2-8 ms on a slow 2-core machine; 1,024 characters of
 * broadcasts, 875 operations, took 15-24 ms to prepare, and go to a worker.
 */
export const INLINE_OPERATIONS = 256;

const QASM2_HEADER = /^\s*OPENQASM\s+2(\.0)?\s*;/;
const DEFINITIONS = /\b(gate|opaque)\b/;
const REGISTER = /\b([qc])reg\b/g;
const DECLARATION = /\b([qc])reg\s+[A-Za-z_][A-Za-z0-9_]*\s*\[\s*(\d{1,3})\s*\]\s*;/g;

/** Whether `qasm` is small OpenQASM 2 whose expansion is bounded by its text (see above). */
function smallQasm2(qasm: string): boolean {
  if (qasm.length > INLINE_TEXT_CHARS || !QASM2_HEADER.test(qasm) || DEFINITIONS.test(qasm)) return false;
  // Every register keyword must be a plain declaration this pattern reads: one that is not
  // (a comment between its words, say) sends the task to a worker.
  const mentions = qasm.match(REGISTER)?.length ?? 0;
  let declared = 0;
  let qubits = 0;
  let clbits = 0;
  let widest = 0;
  for (const m of qasm.matchAll(DECLARATION)) {
    declared++;
    const size = Number(m[2]);
    widest = Math.max(widest, size);
    if (m[1] === 'q') qubits += size;
    else clbits += size;
  }
  const statements = qasm.split(';').length - 1;
  return declared === mentions && qubits <= INLINE_QUBITS && clbits <= INLINE_CLBITS && statements * widest <= INLINE_OPERATIONS;
}

/** Whether the pool runs `task` on the calling thread (see the module's comment). */
export function runsInline(op: 'prepare' | 'execute', task: CircuitTask): boolean {
  if (task.optimizationLevel === 3 || task.noise || task.shots > INLINE_SHOTS) return false;
  const backend = readBackend(task.backend);
  if (!backend || backend.type !== 'simulator' || backend.coupling_map !== null) return false;
  if ((task.method ?? backend.simulation_methods[0]) !== 'statevector') return false;
  if (!smallQasm2(task.qasm)) return false;
  // A job runs the optimized text prepared at submission; without it, it optimizes again.
  if (op === 'execute' && task.optimizationLevel !== null && task.prepared && !smallQasm2(task.prepared.optimized_circuit)) return false;
  return true;
}
