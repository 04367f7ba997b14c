/**
 * Checks of a submitted circuit before anything is stored or charged, with the job system's
 * own validation (the same the worker repeats): the backend exists, the QASM parses (the
 * parser's line and column in the message), the circuit fits the backend; then what core adds:
 * the shots fit the backend and the simulation state fits this machine's memory.
 */
import { memoryRequiredBytes, type Backend, type Circuit } from '../../engines/quantum/index.ts';
import { memoryLimitBytes } from '../../engines/quantum/statevector/state.ts';
import { backendOf, TaskError, validateCircuit } from '../../platform/quantum-jobs/index.ts';
import { backendIds } from './catalog.ts';
import { coreError } from './errors.ts';

export interface CheckedCircuit {
  backend: Backend;
  circuit: Circuit;
}

const CODES = { INVALID_CIRCUIT: 'INVALID_CIRCUIT', CIRCUIT_TOO_LARGE: 'INVALID_CIRCUIT', INVALID_BACKEND: 'INVALID_BACKEND', EXECUTION_ERROR: 'INVALID_CIRCUIT' } as const;

/** `where` names the circuit in a batch (`circuits[3]: `), empty for a single one. */
export function checkCircuit(qasm: string, backendId: string, shots: number, where = ''): CheckedCircuit {
  let backend: Backend;
  let circuit: Circuit;
  try {
    backend = backendOf(backendId);
    circuit = validateCircuit(qasm, backend);
  } catch (err) {
    if (!(err instanceof TaskError)) throw err;
    const known = err.code === 'INVALID_BACKEND' ? `; known backends: ${backendIds().join(', ')}` : '';
    throw coreError(CODES[err.code], `${where}${err.message}${known}`);
  }
  if (shots > backend.max_shots) {
    throw coreError('INVALID_REQUEST', `${where}shots ${shots} exceed the ${backend.max_shots} that backend '${backend.id}' runs per job`);
  }
  // What the worker will allocate: the ideal simulators' own method; devices up to 10 used qubits run as density matrices.
  const method = backend.type === 'simulator' ? backend.simulation_methods[0]! : circuit.numQubits <= 10 ? 'density_matrix' : 'statevector';
  const need = memoryRequiredBytes(method, circuit.numQubits);
  if (method !== 'mps' && need > memoryLimitBytes() * 0.9) {
    throw coreError(
      'BACKEND_UNAVAILABLE',
      `${where}Backend '${backend.id}' cannot take a ${circuit.numQubits}-qubit circuit on this server: its state needs ` +
        `${(need / 2 ** 30).toFixed(1)} GiB, more than the ${((memoryLimitBytes() * 0.9) / 2 ** 30).toFixed(1)} GiB it has`,
    );
  }
  return { backend, circuit };
}
