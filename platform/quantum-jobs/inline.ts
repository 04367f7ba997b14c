/**
 * Which tasks the pool runs on the calling thread instead of a worker. A worker costs two
 * messages and a thread's wake-up each way (about 0.5-0.7 ms of a Bell job's 5 ms through
 * HTTP, measured), while a small circuit's own work is a tenth of a millisecond. The test
 * below is a bound on the work read off the text without parsing it: every statement plain
 * OpenQASM 2 (a declaration, qelib1.inc, a standard gate, measure, reset or barrier, with an
 * optional `if`: no loops, no modifiers, no gate definitions), few qubits and classical bits
 * declared in `qreg`/`creg` statements, a short text, an ideal simulator (no routing, no noise) and an
 * optimization level below 3, and at most INLINE_OPERATIONS operations as the text bounds them.
 * What passes takes a few milliseconds in the worst case measured, about 0.1 ms for a Bell
 * circuit. Anything else runs on a worker, as before.
 */
import { readBackend } from '../../engines/quantum/backends.ts';
import { gateInfo } from '../../engines/quantum/gates.ts';
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

// The parser is lenient: under an `OPENQASM 2.0` header it still takes OpenQASM 3's `for`
// (with or without braces), `pow(n) @` and `qubit`/`bit` declarations, any of which expands a
// short text into any number of operations or qubits. So the header proves nothing, and the
// text is read statement by statement against a whitelist of plain OpenQASM 2 shapes: a
// statement of any other shape sends the task to a worker.
const ID = String.raw`[A-Za-z_][A-Za-z0-9_]*`;
const ARG = String.raw`${ID}(?:\s*\[\s*\d+\s*\])?`;
const ARGS = String.raw`${ARG}(?:\s*,\s*${ARG})*`;
/** Gate parameters: arithmetic with at most one level of parentheses (sin(pi/2)), nothing that opens a block. */
const PARAMS = String.raw`\((?:[^(){};@\[\]]|\([^(){};@\[\]]*\))*\)`;
const HEADER = /^OPENQASM\s+2(?:\.0)?$/;
const INCLUDE = /^include\s+"qelib1\.inc"$/;
const DECLARATION = new RegExp(String.raw`^([qc])reg\s+${ID}\s*\[\s*(\d{1,3})\s*\]$`);
const CONDITION = new RegExp(String.raw`^if\s*\(\s*${ID}\s*==\s*\d+\s*\)\s*`);
const MEASURE = new RegExp(String.raw`^measure\s+${ARG}\s*->\s*${ARG}$`);
const RESET_OR_BARRIER = new RegExp(String.raw`^(?:reset\s+${ARG}|barrier\s+${ARGS})$`);
const GATE = new RegExp(String.raw`^(${ID})(?:\s*${PARAMS}\s*|\s+)${ARGS}$`);

/** Whether one statement (no condition) expands to at most one operation per qubit of the widest register. */
function plainOperation(statement: string): boolean {
  if (MEASURE.test(statement) || RESET_OR_BARRIER.test(statement)) return true;
  const gate = GATE.exec(statement);
  // A standard gate of the catalog: keywords (for, pow, qubit, let...) are no gate names.
  return gate !== null && gateInfo(gate[1]!) !== undefined;
}

/** Whether `qasm` is small plain OpenQASM 2 whose expansion its text bounds (see above). */
function smallQasm2(qasm: string): boolean {
  if (qasm.length > INLINE_TEXT_CHARS || qasm.includes('/*')) return false;
  const statements = qasm.replace(/\/\/[^\n]*/g, '').split(';').map((t) => t.trim());
  // Text after the last semicolon is not a statement: only whitespace may follow it.
  if (statements.pop() !== '' || !HEADER.test(statements[0] ?? '')) return false;
  let qubits = 0;
  let clbits = 0;
  let widest = 0;
  for (const statement of statements.slice(1)) {
    const declared = DECLARATION.exec(statement);
    if (declared) {
      const size = Number(declared[2]);
      widest = Math.max(widest, size);
      if (declared[1] === 'q') qubits += size;
      else clbits += size;
    } else if (!INCLUDE.test(statement) && !plainOperation(statement.replace(CONDITION, ''))) return false;
  }
  return qubits <= INLINE_QUBITS && clbits <= INLINE_CLBITS && statements.length * widest <= INLINE_OPERATIONS;
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
