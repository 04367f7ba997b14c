/**
 * The engine's backend catalog as interface 3 shows it: list items, details and calibration.
 * Fidelities are read from each device's calibration (1 minus the average error of a one- or
 * two-qubit gate and of a readout); the ideal simulators are exact, so theirs are 1.
 */
import { getBackend, listBackends, standardGateNames, type Backend } from '../../engines/quantum/index.ts';

export interface Fidelities {
  single_qubit_fidelity: number;
  two_qubit_fidelity: number;
  readout_fidelity: number;
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

export function fidelitiesOf(b: Backend): Fidelities {
  const c = b.calibration;
  if (!c) return { single_qubit_fidelity: 1, two_qubit_fidelity: 1, readout_fidelity: 1 };
  return {
    single_qubit_fidelity: round(1 - c.sq_error),
    two_qubit_fidelity: round(1 - c.cx_error),
    readout_fidelity: round(1 - c.readout_error),
  };
}

/** The mean of the three calibrated fidelities: one figure to compare backends by. */
export function averageFidelity(b: Backend): number {
  const f = fidelitiesOf(b);
  return round((f.single_qubit_fidelity + f.two_qubit_fidelity + f.readout_fidelity) / 3);
}

/** Gates a backend runs natively: a device's basis, or every gate of the engine's table for a simulator. */
export function nativeGates(b: Backend): string[] {
  return b.type === 'simulator' ? standardGateNames().sort() : b.basis_gates.filter((g) => g !== 'id');
}

export function backendIds(): string[] {
  return listBackends().map((b) => b.id);
}

export { getBackend, listBackends };
export type { Backend };
