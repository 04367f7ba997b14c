/**
 * The backend catalog model: ideal simulators and emulated devices with qubit count, basis
 * gates, coupling map, calibration and limits. Services expose this catalog; the noise model
 * of an emulated device is built from its calibration (see noise.ts).
 */

export interface Calibration {
  last_updated: string;
  /** Mean amplitude-damping time in microseconds. */
  t1_us: number;
  /** Mean dephasing time in microseconds (T2 <= 2 T1). */
  t2_us: number;
  /** Probability that a measured bit is reported flipped. */
  readout_error: number;
  /** Average error of a two-qubit gate. */
  cx_error: number;
  /** Average error of a one-qubit gate. */
  sq_error: number;
  gate_time_1q_ns: number;
  gate_time_2q_ns: number;
  readout_time_ns: number;
}

/**
 * A device's list price, the one price list every quantum service reads (a service that adds
 * a fee of its own says so in its README and its estimate). Simulators are free on the list.
 *  - `per_qpu_minute`: QPU time (shots x (one shot's schedule + the repetition delay), see
 *    pricing.ts) at `rate_per_minute`: the superconducting devices of supplier B.
 *  - `per_shot`: `task_fee` per job plus `rate_per_shot` per shot: suppliers A and C.
 */
export type DevicePrice =
  | { model: 'free'; currency: 'USD' }
  | { model: 'per_qpu_minute'; rate_per_minute: number; rep_delay_us: number; currency: 'USD' }
  | { model: 'per_shot'; rate_per_shot: number; task_fee: number; currency: 'USD' };

export interface Backend {
  id: string;
  name: string;
  provider: string;
  type: 'simulator' | 'hardware';
  qubits: number;
  basis_gates: string[];
  /** Directed pairs [control, target] allowed for two-qubit gates; null means all-to-all. */
  coupling_map: Array<[number, number]> | null;
  calibration: Calibration | null;
  max_shots: number;
  max_circuits: number;
  simulation_methods: Array<'statevector' | 'density_matrix' | 'mps'>;
  /** The list price of a run on it (pricing.ts computes a job's cost from it). */
  price: DevicePrice;
}

function line(n: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i + 1 < n; i++) out.push([i, i + 1], [i + 1, i]);
  return out;
}

/** A rows x cols grid with nearest-neighbour couplings in both directions. */
function grid(rows: number, cols: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const q = r * cols + c;
      if (c + 1 < cols) out.push([q, q + 1], [q + 1, q]);
      if (r + 1 < rows) out.push([q, q + cols], [q + cols, q]);
    }
  }
  return out;
}

/** Heavy-hex-like ring of n qubits with a chord every 4 qubits (degree <= 3). */
function ringWithChords(n: number): Array<[number, number]> {
  const out = line(n);
  out.push([n - 1, 0], [0, n - 1]);
  for (let i = 0; i + 6 < n; i += 4) out.push([i, i + 6], [i + 6, i]);
  return out;
}

const CAL_DATE = '2026-11-01T00:00:00Z';

/**
 * What a simulator executes without decomposition once a job has been optimized for it: the
 * optimizer's default target set (`optimizer/basis.ts`, DEFAULT_BASIS), a general one-qubit
 * rotation and CNOT, applied as they are by every simulation method. Listed (rather than left
 * empty) so a transpiling client targets exactly what the services' optimizer produces.
 */
const SIMULATOR_BASIS = ['u3', 'cx'];

const FREE: DevicePrice = { model: 'free', currency: 'USD' };
/** Supplier B's superconducting devices: $96 per QPU minute ($1.60 per QPU second), 250 us between shots. */
const SUPPLIER_B_PRICE: DevicePrice = { model: 'per_qpu_minute', rate_per_minute: 96, rep_delay_us: 250, currency: 'USD' };

const CATALOG: Backend[] = [
  {
    id: 'statevector_simulator', name: 'Statevector simulator', provider: 'lattice', type: 'simulator', qubits: 30,
    basis_gates: SIMULATOR_BASIS, coupling_map: null, calibration: null, max_shots: 1_000_000, max_circuits: 300,
    simulation_methods: ['statevector'], price: FREE,
  },
  {
    id: 'density_matrix_simulator', name: 'Density-matrix simulator', provider: 'lattice', type: 'simulator', qubits: 13,
    basis_gates: SIMULATOR_BASIS, coupling_map: null, calibration: null, max_shots: 1_000_000, max_circuits: 300,
    simulation_methods: ['density_matrix'], price: FREE,
  },
  {
    id: 'mps_simulator', name: 'Matrix product state simulator', provider: 'lattice', type: 'simulator', qubits: 1000,
    basis_gates: SIMULATOR_BASIS, coupling_map: null, calibration: null, max_shots: 1_000_000, max_circuits: 300,
    simulation_methods: ['mps'], price: FREE,
  },
  {
    id: 'lattice_falcon_27', name: 'Falcon-class 27-qubit device (emulated)', provider: 'supplier_b_quantum', type: 'hardware',
    qubits: 27, basis_gates: ['cx', 'rz', 'sx', 'x', 'id'], coupling_map: ringWithChords(27),
    calibration: {
      last_updated: CAL_DATE, t1_us: 110, t2_us: 95, readout_error: 0.018, cx_error: 0.009, sq_error: 0.0003,
      gate_time_1q_ns: 35, gate_time_2q_ns: 420, readout_time_ns: 5000,
    },
    max_shots: 100_000, max_circuits: 300, simulation_methods: ['statevector', 'density_matrix', 'mps'], price: SUPPLIER_B_PRICE,
  },
  {
    id: 'lattice_grid_16', name: 'Superconducting 4x4 grid (emulated)', provider: 'supplier_c', type: 'hardware', qubits: 16,
    basis_gates: ['cz', 'rz', 'sx', 'x'], coupling_map: grid(4, 4),
    calibration: {
      last_updated: CAL_DATE, t1_us: 60, t2_us: 45, readout_error: 0.03, cx_error: 0.012, sq_error: 0.0008,
      gate_time_1q_ns: 25, gate_time_2q_ns: 60, readout_time_ns: 1500,
    },
    max_shots: 100_000, max_circuits: 100, simulation_methods: ['statevector', 'density_matrix', 'mps'],
    price: { model: 'per_shot', rate_per_shot: 0.00035, task_fee: 0.3, currency: 'USD' },
  },
  {
    id: 'lattice_ion_11', name: 'Trapped-ion 11-qubit device (emulated)', provider: 'supplier_a_quantum', type: 'hardware',
    qubits: 11, basis_gates: ['rxx', 'rz', 'ry'], coupling_map: null,
    calibration: {
      last_updated: CAL_DATE, t1_us: 1e7, t2_us: 2e5, readout_error: 0.004, cx_error: 0.015, sq_error: 0.0005,
      gate_time_1q_ns: 10_000, gate_time_2q_ns: 200_000, readout_time_ns: 100_000,
    },
    max_shots: 10_000, max_circuits: 50, simulation_methods: ['statevector', 'density_matrix', 'mps'],
    price: { model: 'per_shot', rate_per_shot: 0.03, task_fee: 0.3, currency: 'USD' },
  },
  {
    id: 'lattice_line_5', name: 'Small 5-qubit line device (emulated)', provider: 'supplier_b_quantum', type: 'hardware', qubits: 5,
    basis_gates: ['cx', 'rz', 'sx', 'x'], coupling_map: line(5),
    calibration: {
      last_updated: CAL_DATE, t1_us: 80, t2_us: 70, readout_error: 0.025, cx_error: 0.011, sq_error: 0.0004,
      gate_time_1q_ns: 35, gate_time_2q_ns: 350, readout_time_ns: 4000,
    },
    max_shots: 100_000, max_circuits: 300, simulation_methods: ['statevector', 'density_matrix', 'mps'], price: SUPPLIER_B_PRICE,
  },
];

/** Every backend of the catalog (copies: callers may not change the catalog). */
export function listBackends(): Backend[] {
  return CATALOG.map((b) => structuredClone(b));
}

/** The backend with this id, or undefined (a copy: callers may change it). */
export function getBackend(id: string): Backend | undefined {
  const b = CATALOG.find((x) => x.id === id);
  return b && structuredClone(b);
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

/** The catalog frozen, by id: a copy per lookup (structuredClone, about 30 us) is dearer than a small job's simulation. */
const FROZEN = new Map(CATALOG.map((b) => [b.id, deepFreeze(structuredClone(b))]));

/**
 * The backend with this id, or undefined, for callers that only read it (a job's every
 * stage reads its backend): the catalog's own frozen entry, no copy; writing to it throws.
 */
export function readBackend(id: string): Readonly<Backend> | undefined {
  return FROZEN.get(id);
}
