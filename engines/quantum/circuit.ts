/**
 * The circuit model every part of the quantum engine shares: the parser produces it, the
 * simulators execute it, the optimizer rewrites it and the emitters print it.
 *
 * Conventions (CONTRACT): qubit 0 is the least significant bit of a basis-state index;
 * classical bits are numbered in declaration order across registers.
 */

/** A classical condition: the bits `clbits` (least significant first) read as an integer equal `value`. */
export interface Condition {
  clbits: number[];
  value: number;
}

/**
 * A gate from the standard gate table (see gates.ts), applied to `qubits` in the gate's own
 * argument order (for `cx`, control first). `controls` counts extra leading positive controls
 * added by `ctrl @` modifiers: `qubits[0..controls)` are controls, the rest are the gate's own.
 */
export interface GateOp {
  kind: 'gate';
  name: string;
  qubits: number[];
  params: number[];
  controls?: number;
  condition?: Condition;
}

/** An explicit unitary (row-major, interleaved re/im, 2^k x 2^k) on `qubits`, qubits[0] least significant. */
export interface UnitaryOp {
  kind: 'unitary';
  label: string;
  qubits: number[];
  matrix: Float64Array;
  condition?: Condition;
}

export interface MeasureOp {
  kind: 'measure';
  qubit: number;
  clbit: number;
  condition?: Condition;
}

export interface ResetOp {
  kind: 'reset';
  qubit: number;
  condition?: Condition;
}

export interface BarrierOp {
  kind: 'barrier';
  qubits: number[];
}

export type Operation = GateOp | UnitaryOp | MeasureOp | ResetOp | BarrierOp;

export interface Register {
  name: string;
  size: number;
  /** Index of the register's bit 0 in the flat qubit or clbit numbering. */
  offset: number;
}

export interface Circuit {
  numQubits: number;
  numClbits: number;
  qregs: Register[];
  cregs: Register[];
  ops: Operation[];
  /** Global phase in radians (from `gphase`, and tracked by the optimizer). */
  globalPhase: number;
}

export function emptyCircuit(numQubits: number, numClbits = 0): Circuit {
  return {
    numQubits,
    numClbits,
    qregs: numQubits ? [{ name: 'q', size: numQubits, offset: 0 }] : [],
    cregs: numClbits ? [{ name: 'c', size: numClbits, offset: 0 }] : [],
    ops: [],
    globalPhase: 0,
  };
}
