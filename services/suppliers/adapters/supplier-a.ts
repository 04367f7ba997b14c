/**
 * Supplier A's public REST API (a trapped-ion cloud; the AQT portal API v1, as its public SDK
 * uses it): `GET /workspaces` and `GET /resources/{id}` list targets, `POST
 * /submit/{workspace}/{resource}` submits a `quantum_circuit` job of native operations (RZ, R,
 * RXX with angles in units of pi, one final MEASURE), `GET /result/{job_id}` polls it
 * (`queued`, `ongoing`, `finished` with per-shot qubit samples, `error`, `cancelled`) and
 * `DELETE /jobs/{job_id}` cancels it. Authentication: `Authorization: Bearer <token>`.
 */
import { getBackend, parseQasm, type Circuit } from '../../../engines/quantum/index.ts';
import { optimizeFor } from '../../../platform/quantum-jobs/index.ts';
import { CLASS_DEVICE, type SupplierTarget } from '../catalog.ts';
import type { CircuitInfo } from '../circuit.ts';
import type { SupplierAConfig } from '../config.ts';
import { supplierError } from '../errors.ts';
import type { SupplierJob } from '../store.ts';
import { countsFromShots } from './counts.ts';
import { jsonCall } from './http.ts';
import type { Observed, Submitted, SupplierAdapter } from './types.ts';

const SUPPLIER = 'supplier_a_quantum';

type Op =
  | { operation: 'RZ'; phi: number; qubit: number }
  | { operation: 'R'; theta: number; phi: number; qubit: number }
  | { operation: 'RXX'; qubits: [number, number]; theta: number }
  | { operation: 'MEASURE' };

interface ApiResponse {
  job: { job_id: string; job_type?: string; label?: string; resource_id?: string; workspace_id?: string };
  response: { status: 'queued' | 'ongoing' | 'finished' | 'error' | 'cancelled'; result?: Record<string, number[][]>; message?: string };
}

/** Angle in units of pi, reduced to (-1, 1]. */
function halfTurns(rad: number): number {
  let x = (rad / Math.PI) % 2;
  if (x > 1) x -= 2;
  if (x <= -1) x += 2;
  return x;
}

/**
 * The circuit in the API's operations. ry(t) is R(t, 1/2); R takes theta in [0, 1], so a
 * negative turn becomes R(-t, phi + 1). RXX takes theta in [0, 1/2]: larger turns are split in
 * two, and a negative one is conjugated by RZ(1) on its first qubit (Z X Z = -X).
 */
export function toAqtOps(c: Circuit): Op[] {
  const ops: Op[] = [];
  // The device measures every qubit once, at the end: a gate may follow the measurement of
  // another qubit, never one of its own.
  const measured = new Set<number>();
  for (const op of c.ops) {
    if (op.kind === 'barrier') continue;
    if (op.kind === 'measure') {
      measured.add(op.qubit);
      continue;
    }
    if (op.kind !== 'reset' && op.qubits.some((q) => measured.has(q))) {
      throw supplierError('CIRCUIT_INVALID', 'Supplier A runs measurements only at the end of a circuit', { supplier: SUPPLIER });
    }
    if (op.kind !== 'gate') throw supplierError('CIRCUIT_INVALID', `Supplier A cannot run '${op.kind}' operations`, { supplier: SUPPLIER });
    const [a, b] = op.qubits as [number, number];
    if (op.name === 'rz') ops.push({ operation: 'RZ', phi: halfTurns(op.params[0]!), qubit: a });
    else if (op.name === 'ry' || op.name === 'rx') {
      const t = halfTurns(op.params[0]!);
      const phi = op.name === 'ry' ? 0.5 : 0;
      ops.push(t >= 0 ? { operation: 'R', theta: t, phi, qubit: a } : { operation: 'R', theta: -t, phi: phi + 1, qubit: a });
    } else if (op.name === 'rxx') {
      const t = halfTurns(op.params[0]!);
      const parts = Math.abs(t) > 0.5 ? [t / 2, t / 2] : [t];
      for (const p of parts) {
        if (p >= 0) ops.push({ operation: 'RXX', qubits: [a, b], theta: p });
        else ops.push({ operation: 'RZ', phi: 1, qubit: a }, { operation: 'RXX', qubits: [a, b], theta: -p }, { operation: 'RZ', phi: 1, qubit: a });
      }
    } else if (op.name === 'id') continue;
    else throw supplierError('CIRCUIT_INVALID', `Gate '${op.name}' is not native to supplier A after translation`, { supplier: SUPPLIER });
  }
  if (measured.size === 0) throw supplierError('CIRCUIT_INVALID', 'Supplier A needs at least one measurement', { supplier: SUPPLIER });
  ops.push({ operation: 'MEASURE' });
  return ops;
}

/** The circuit translated to the trapped-ion gates, qubits kept where they are. */
export function nativeCircuit(qasm: string): Circuit {
  const device = getBackend(CLASS_DEVICE.supplier_a_quantum)!;
  return optimizeFor(parseQasm(qasm), qasm, { ...device, qubits: 1000 }, 1, { preserveLayout: true }).circuit;
}

export class SupplierAAdapter implements SupplierAdapter {
  readonly supplier = SUPPLIER;
  readonly mode = 'remote' as const;
  constructor(private readonly config: SupplierAConfig) {}

  private call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return jsonCall<T>(SUPPLIER, {
      method,
      url: `${this.config.url}${path}`,
      headers: { authorization: `Bearer ${this.config.token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async targets(): Promise<SupplierTarget[]> {
    const workspaces = await this.call<Array<{ id: string; resources: Array<{ id: string; name: string; type: string }> }>>('GET', '/workspaces');
    const device = getBackend(CLASS_DEVICE.supplier_a_quantum)!;
    const out: SupplierTarget[] = [];
    for (const ws of workspaces) {
      for (const r of ws.resources ?? []) {
        const detail = await this.call<{ available_qubits?: number; status?: string }>('GET', `/resources/${encodeURIComponent(r.id)}`);
        out.push({
          supplier: SUPPLIER, id: r.id, name: r.name, provider: ws.id, type: r.type === 'device' ? 'qpu' : 'simulator',
          numQubits: detail.available_qubits ?? device.qubits, status: detail.status && detail.status !== 'online' ? 'OFFLINE' : 'ONLINE',
          backend: device.id, maxShots: 2000, basisGates: ['r', 'rz', 'rxx'], mode: 'remote', processor: `${r.name} (${r.type})`,
        });
      }
    }
    return out;
  }

  async submit(job: SupplierJob, info: CircuitInfo, target: SupplierTarget): Promise<Submitted> {
    const native = nativeCircuit(job.qasm);
    const body = {
      job_type: 'quantum_circuit',
      label: job.publicId,
      payload: { circuits: [{ repetitions: job.shots, quantum_circuit: toAqtOps(native), number_of_qubits: info.numQubits }] },
    };
    const res = await this.call<ApiResponse>('POST', `/submit/${encodeURIComponent(target.provider)}/${encodeURIComponent(target.id)}`, body);
    if (!res.job?.job_id) throw supplierError('BACKEND_ERROR', 'Supplier A accepted the job without a job id', { supplier: SUPPLIER });
    return { remoteId: res.job.job_id, remoteStatus: res.response?.status ?? 'queued' };
  }

  async observe(job: SupplierJob): Promise<Observed> {
    const res = await this.call<ApiResponse>('GET', `/result/${encodeURIComponent(job.remoteId!)}`);
    const s = res.response?.status;
    if (s === 'queued') return { status: 'queued', remoteStatus: s };
    if (s === 'ongoing') return { status: 'running', remoteStatus: s };
    if (s === 'cancelled') return { status: 'cancelled', remoteStatus: s };
    if (s === 'error') return { status: 'failed', remoteStatus: s, error: { code: 'JOB_FAILED', message: res.response.message ?? 'Supplier A reported an error' } };
    if (s === 'finished') {
      const samples = res.response.result?.['0'] ?? [];
      const native = nativeCircuit(job.qasm);
      // The API measures every qubit; a sample lists qubit 0 first.
      const counts = countsFromShots(samples, native, (shot, q) => shot[q] ?? 0);
      return { status: 'completed', remoteStatus: s, result: { counts, shots: samples.length, execution_time: null, num_qubits: job.numQubits } };
    }
    throw supplierError('BACKEND_ERROR', `Supplier A reported an unknown status '${String(s)}'`, { supplier: SUPPLIER });
  }

  async cancel(job: SupplierJob): Promise<'cancelled' | 'not_cancellable'> {
    const now = await this.observe(job);
    if (now.status !== 'queued') return 'not_cancellable';
    await this.call('DELETE', `/jobs/${encodeURIComponent(job.remoteId!)}`);
    return 'cancelled';
  }
}
