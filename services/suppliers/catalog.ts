/**
 * The targets each supplier offers when it is emulated: the engine's catalog devices of that
 * supplier (CONTRACT: one catalog, the same ids everywhere), named the way the supplier names
 * them. A remote supplier lists its own targets (adapters/*); each is priced and limited by
 * the catalog device of its class (`backend`).
 */
import { getBackend, type Backend } from '../../engines/quantum/index.ts';
import type { SupplierId } from './config.ts';

export interface SupplierTarget {
  supplier: SupplierId;
  /** Supplier A: target id; B: backend name; C: device ARN; HPC GPU: the simulator id. */
  id: string;
  name: string;
  /** Supplier A's provider id (its workspace); the supplier id for the others. */
  provider: string;
  type: 'qpu' | 'simulator';
  numQubits: number;
  /** Availability in the suppliers' own word. */
  status: 'ONLINE' | 'OFFLINE';
  /** The catalog backend that emulates it, or whose calibration and limits price a remote one. */
  backend: string;
  maxShots: number;
  basisGates: string[];
  mode: 'emulated' | 'remote';
  processor: string;
}

/** Supplier A's emulated provider (trapped ions, priced per AQT). */
export const SUPPLIER_A_PROVIDER = {
  id: 'lattice_ion',
  name: 'Lattice trapped-ion emulation',
  description: 'Trapped-ion devices emulated with their calibrated noise on the Lattice simulators (all-to-all connectivity, native RXX/RZ/RY).',
  cost_model: 'per_aqt' as const,
};

/** The class device of each cloud supplier: its calibration and limits price remote targets. */
export const CLASS_DEVICE: Record<Exclude<SupplierId, 'hpc_gpu'>, string> = {
  supplier_a_quantum: 'lattice_ion_11',
  supplier_b_quantum: 'lattice_falcon_27',
  supplier_c: 'lattice_grid_16',
};

export const SUPPLIER_NAMES: Record<SupplierId, string> = {
  hpc_gpu: 'HPC GPU simulation',
  supplier_b_quantum: 'Supplier B quantum runtime',
  supplier_a_quantum: 'Supplier A trapped-ion cloud',
  supplier_c: 'Supplier C quantum tasks',
};

/** Supplier C's device ARN for a catalog backend. */
export function deviceArn(backend: Backend): string {
  const kind = backend.type === 'simulator' ? 'quantum-simulator' : 'qpu';
  return `arn:lattice:supplier-c:::device/${kind}/lattice/${backend.id}`;
}

function target(supplier: SupplierId, b: Backend, id: string, provider: string): SupplierTarget {
  return {
    supplier,
    id,
    name: b.name,
    provider,
    type: b.type === 'simulator' ? 'simulator' : 'qpu',
    numQubits: b.qubits,
    status: 'ONLINE',
    backend: b.id,
    maxShots: b.max_shots,
    basisGates: b.basis_gates,
    mode: 'emulated',
    processor: b.type === 'simulator' ? 'Lattice statevector engine (CPU)' : `${b.name.replace(/ \(emulated\)$/, '')}, emulated with its calibration`,
  };
}

const must = (id: string): Backend => {
  const b = getBackend(id);
  if (!b) throw new Error(`catalog backend ${id} is missing`);
  return b;
};

/** The emulated targets of a supplier, in a stable order. */
export function emulatedTargets(supplier: SupplierId): SupplierTarget[] {
  switch (supplier) {
    case 'hpc_gpu':
      return [target('hpc_gpu', must('statevector_simulator'), 'statevector_simulator', 'hpc_gpu')];
    case 'supplier_a_quantum':
      return [target(supplier, must('lattice_ion_11'), 'lattice_ion_11', SUPPLIER_A_PROVIDER.id)];
    case 'supplier_b_quantum':
      return ['lattice_falcon_27', 'lattice_line_5', 'statevector_simulator'].map((id) => target(supplier, must(id), id, supplier));
    case 'supplier_c':
      return ['lattice_grid_16', 'statevector_simulator'].map((id) => target(supplier, must(id), deviceArn(must(id)), supplier));
  }
}
