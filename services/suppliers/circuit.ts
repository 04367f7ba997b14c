/**
 * What the cost models and the validator need to know about a circuit: parsed once, with its
 * gate counts by arity, measurements and depth (the time one shot takes on a device is the
 * engine's schedule, engines/quantum/pricing.ts).
 */
import { createHash } from 'node:crypto';
import { gateMatrix, parseQasm, QasmError, type Circuit } from '../../engines/quantum/index.ts';
import { counts } from '../../engines/quantum/optimizer/metrics.ts';
import { supplierError } from './errors.ts';

export interface CircuitInfo {
  circuit: Circuit;
  numQubits: number;
  numClbits: number;
  /** Gates on one qubit. */
  oneQubitGates: number;
  /** Gates on two qubits, plus 6 (k - 2) for each gate on k >= 3 qubits (its usual two-qubit decomposition). */
  twoQubitGates: number;
  measurements: number;
  depth: number;
  gateNames: string[];
  /** A measurement followed by an operation on the same qubit. */
  midCircuitMeasurement: boolean;
  /** Gates without a definition (opaque): no simulator or device can run them. */
  undefinedGates: string[];
}

/** Parses `qasm`; throws CIRCUIT_INVALID with the line and column of the first syntax error. */
export function analyzeCircuit(qasm: string, supplier: string | null = null): CircuitInfo {
  let circuit: Circuit;
  try {
    circuit = parseQasm(qasm);
  } catch (err) {
    if (err instanceof QasmError) {
      throw supplierError('CIRCUIT_INVALID', `Invalid OpenQASM at ${err.message}`, { supplier, line: err.line, column: err.column });
    }
    throw supplierError('CIRCUIT_INVALID', `Invalid OpenQASM: ${(err as Error).message}`, { supplier });
  }
  if (circuit.numQubits === 0) throw supplierError('CIRCUIT_INVALID', 'The circuit declares no qubits', { supplier });
  return describeCircuit(circuit);
}

export function describeCircuit(circuit: Circuit): CircuitInfo {
  let one = 0;
  let two = 0;
  let measurements = 0;
  const names = new Set<string>();
  const undefinedGates = new Set<string>();
  const measured = new Set<number>();
  let mid = false;
  for (const op of circuit.ops) {
    if (op.kind === 'measure') {
      measurements++;
      measured.add(op.qubit);
      continue;
    }
    if (op.kind === 'barrier') continue;
    const qubits = op.kind === 'reset' ? [op.qubit] : op.qubits;
    if (qubits.some((q) => measured.has(q))) mid = true;
    if (op.kind === 'reset') continue;
    const name = op.kind === 'gate' ? op.name : 'unitary';
    names.add(name);
    if (op.kind === 'gate') {
      try {
        gateMatrix(op.name, op.params);
      } catch {
        undefinedGates.add(op.name);
      }
    }
    const k = op.qubits.length;
    if (k === 1) one++;
    else if (k === 2) two++;
    else two += 6 * (k - 2);
  }
  return {
    circuit,
    numQubits: circuit.numQubits,
    numClbits: circuit.numClbits,
    oneQubitGates: one,
    twoQubitGates: two,
    measurements,
    depth: counts(circuit).depth,
    gateNames: [...names].sort(),
    midCircuitMeasurement: mid,
    undefinedGates: [...undefinedGates].sort(),
  };
}

/** `sha3-256:<hex>` of the text's UTF-8 bytes, as the evidence bundles of the project write it. */
export function sha3(text: string): string {
  return `sha3-256:${createHash('sha3-256').update(text, 'utf8').digest('hex')}`;
}
