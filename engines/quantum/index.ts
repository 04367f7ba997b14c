/**
 * The quantum engine's public API: OpenQASM parsing and printing, the standard gate table,
 * and the statevector, density-matrix and MPS simulators.
 *
 * @example
 * import { parseQasm, simulateStatevector, toQasm } from './engines/quantum/index.ts';
 * const bell = parseQasm('OPENQASM 2.0; include "qelib1.inc"; qreg q[2]; h q[0]; cx q[0],q[1];');
 * simulateStatevector(bell); // [0.7071, 0, 0, 0, 0, 0, 0.7071, 0]
 * toQasm(bell, 3);           // OpenQASM 3 text of the same circuit
 */
export type { BarrierOp, Circuit, Condition, GateOp, MeasureOp, Operation, Register, ResetOp, UnitaryOp } from './circuit.ts';
export { emptyCircuit } from './circuit.ts';
export { canonicalGateName, controlledGateMatrix, gateInfo, gateInverse, gateMatrix, standardGateNames } from './gates.ts';
export type { GateInfo } from './gates.ts';
export { parseQasm, QasmError } from './qasm/index.ts';
export { formatAngle, toQasm } from './qasm/emit.ts';
export { simulateStatevector } from './statevector/simulate.ts';
export { MAX_STATEVECTOR_QUBITS, statevectorBytes } from './statevector/state.ts';
export { run, densityDistribution, memoryRequiredBytes, toNoiseModel } from './run.ts';
export type { Method, RunOptions, RunResult } from './run.ts';
export { densityMatrix } from './density/simulate.ts';
export { getBackend, listBackends } from './backends.ts';
export type { Backend, Calibration } from './backends.ts';
export { noiseFromBackend } from './noise.ts';
export type { NoiseModel } from './noise.ts';
export { buildMps } from './mps/run.ts';
export { entropy, hermitianEigenvalues, noisyRunMetrics, MAX_METRICS_QUBITS } from './metrics.ts';
export type { NoisyMetrics } from './metrics.ts';
