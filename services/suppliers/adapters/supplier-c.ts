/**
 * Supplier C's public API (the Amazon Braket REST API, as its public SDK calls it, signed
 * with Signature Version 4): `POST /devices` (SearchDevices) and `GET /device/{arn}` list
 * devices; `POST /quantum-task` (CreateQuantumTask) submits an OpenQASM 3 program with
 * `shots`, `outputS3Bucket` and `outputS3KeyPrefix`; `GET /quantum-task/{arn}`
 * (GetQuantumTask) polls `CREATED`, `QUEUED`, `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLING`,
 * `CANCELLED`; `PUT /quantum-task/{arn}/cancel` (CancelQuantumTask) cancels. Results are read
 * from `results.json` in the task's output directory of the object store.
 */
import { randomUUID } from 'node:crypto';
import { getBackend, parseQasm, toQasm } from '../../../engines/quantum/index.ts';
import { optimizeFor } from '../../../platform/quantum-jobs/index.ts';
import { CLASS_DEVICE, type SupplierTarget } from '../catalog.ts';
import type { CircuitInfo } from '../circuit.ts';
import type { SupplierCConfig } from '../config.ts';
import { supplierError } from '../errors.ts';
import type { SupplierJob } from '../store.ts';
import { secondsOfMs } from '../views.ts';
import { countsFromShots } from './counts.ts';
import { jsonCall } from './http.ts';
import { signRequest } from './sigv4.ts';
import type { Observed, Submitted, SupplierAdapter } from './types.ts';

const SUPPLIER = 'supplier_c';

interface TaskBody {
  quantumTaskArn: string;
  status: 'CREATED' | 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLING' | 'CANCELLED';
  failureReason?: string;
  outputS3Bucket?: string;
  outputS3Directory?: string;
  shots?: number;
}

interface ResultsJson {
  measurements?: number[][];
  measuredQubits?: number[];
  measurementCounts?: Record<string, number>;
  taskMetadata?: { shots?: number; executionDuration?: number | null };
}

/**
 * The circuit as a program the devices take: OpenQASM 3 in gates every device of the supplier
 * names without definitions (`cnot`, `rz`, `v` for sqrt(X), `x`; no `include`), the global
 * phase dropped. The supplier compiles it to each device's native gates and couplings.
 */
export function braketProgram(qasm: string): string {
  const circuit = parseQasm(qasm);
  const device = getBackend(CLASS_DEVICE.supplier_c)!;
  const portable = { ...device, qubits: circuit.numQubits, basis_gates: ['cx', 'rz', 'sx', 'x'], coupling_map: null };
  const text = toQasm(optimizeFor(circuit, qasm, portable, 1, { preserveLayout: true }).circuit, 3);
  return text
    .split('\n')
    .filter((l) => !/^\s*(include\b|gphase\b)/.test(l))
    .map((l) => l.replace(/^(\s*)cx\b/, '$1cnot').replace(/^(\s*)sx\b/, '$1v'))
    .join('\n');
}

export class SupplierCAdapter implements SupplierAdapter {
  readonly supplier = SUPPLIER;
  readonly mode = 'remote' as const;
  constructor(
    private readonly config: SupplierCConfig,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private async signed<T>(method: string, url: string, service: 'braket' | 's3', body?: unknown): Promise<T> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = text ? { 'content-type': 'application/json' } : {};
    const auth = await signRequest({ method, url, headers, body: text }, this.config, { region: this.config.region, service, now: this.now() });
    return jsonCall<T>(SUPPLIER, { method, url, headers: { ...headers, ...auth }, body: text });
  }

  private api<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.signed<T>(method, `${this.config.url}${path}`, 'braket', body);
  }

  async targets(): Promise<SupplierTarget[]> {
    const found = await this.api<{ devices: Array<{ deviceArn: string; deviceName: string; deviceStatus: string; deviceType: string; providerName: string }> }>(
      'POST', '/devices', { filters: [] },
    );
    const device = getBackend(CLASS_DEVICE.supplier_c)!;
    const out: SupplierTarget[] = [];
    for (const d of found.devices ?? []) {
      const detail = await this.api<{ deviceCapabilities?: string }>('GET', `/device/${encodeURIComponent(d.deviceArn)}`);
      let qubits = device.qubits;
      let maxShots = device.max_shots;
      try {
        const caps = JSON.parse(detail.deviceCapabilities ?? '{}') as { paradigm?: { qubitCount?: number }; service?: { shotsRange?: [number, number] } };
        qubits = caps.paradigm?.qubitCount ?? qubits;
        maxShots = caps.service?.shotsRange?.[1] ?? maxShots;
      } catch {
        // capabilities that are not JSON: keep the class device's figures
      }
      out.push({
        supplier: SUPPLIER, id: d.deviceArn, name: d.deviceName, provider: d.providerName, type: d.deviceType === 'QPU' ? 'qpu' : 'simulator',
        numQubits: qubits, status: d.deviceStatus === 'ONLINE' ? 'ONLINE' : 'OFFLINE', backend: device.id, maxShots, basisGates: device.basis_gates,
        mode: 'remote', processor: `${d.providerName} ${d.deviceName}`,
      });
    }
    return out;
  }

  async submit(job: SupplierJob, _info: CircuitInfo, target: SupplierTarget): Promise<Submitted> {
    if (!job.storageBucket) {
      throw supplierError('INVALID_PARAMETERS', 'storage_bucket is required: supplier C writes each task\'s results to object storage', { supplier: SUPPLIER });
    }
    const program = { braketSchemaHeader: { name: 'braket.ir.openqasm.program', version: '1' }, source: braketProgram(job.qasm), inputs: {} };
    const res = await this.api<{ quantumTaskArn: string }>('POST', '/quantum-task', {
      action: JSON.stringify(program),
      clientToken: randomUUID(),
      deviceArn: target.id,
      outputS3Bucket: job.storageBucket,
      outputS3KeyPrefix: job.storagePrefix ?? 'lattice',
      shots: job.shots,
    });
    if (!res.quantumTaskArn) throw supplierError('BACKEND_ERROR', 'Supplier C accepted the task without an ARN', { supplier: SUPPLIER });
    return { remoteId: res.quantumTaskArn, remoteStatus: 'CREATED' };
  }

  async observe(job: SupplierJob): Promise<Observed> {
    const t = await this.api<TaskBody>('GET', `/quantum-task/${encodeURIComponent(job.remoteId!)}`);
    const location = t.outputS3Bucket && t.outputS3Directory ? `s3://${t.outputS3Bucket}/${t.outputS3Directory}` : null;
    switch (t.status) {
      case 'CREATED':
      case 'QUEUED':
        return { status: 'queued', remoteStatus: t.status, resultLocation: location };
      case 'RUNNING':
      case 'CANCELLING':
        return { status: 'running', remoteStatus: t.status, resultLocation: location };
      case 'CANCELLED':
        return { status: 'cancelled', remoteStatus: t.status, resultLocation: location };
      case 'FAILED':
        return { status: 'failed', remoteStatus: t.status, resultLocation: location, error: { code: 'JOB_FAILED', message: t.failureReason ?? 'Supplier C reported a failure' } };
      case 'COMPLETED': {
        if (!t.outputS3Bucket || !t.outputS3Directory) throw supplierError('BACKEND_ERROR', 'Supplier C completed the task without an output location', { supplier: SUPPLIER });
        const base = this.config.storageUrl.replace('{bucket}', t.outputS3Bucket);
        const path = t.outputS3Directory.split('/').map(encodeURIComponent).join('/');
        const r = await this.signed<ResultsJson>('GET', `${base}/${path}/results.json`, 's3');
        const circuit = parseQasm(job.qasm);
        let counts: Record<string, number>;
        if (r.measurements && r.measuredQubits) {
          const index = new Map(r.measuredQubits.map((q, i) => [q, i]));
          counts = countsFromShots(r.measurements, circuit, (shot, q) => shot[index.get(q) ?? -1] ?? 0);
        } else if (r.measurementCounts) {
          // Keys list the measured qubits in order; reorder them into our classical-bit keys.
          const shots = Object.entries(r.measurementCounts).flatMap(([k, n]) => Array.from({ length: n }, () => k));
          const measured = r.measuredQubits ?? [...Array(circuit.numQubits).keys()];
          const index = new Map(measured.map((q, i) => [q, i]));
          counts = countsFromShots(shots, circuit, (shot, q) => Number(shot[index.get(q) ?? -1] ?? 0));
        } else throw supplierError('BACKEND_ERROR', 'Supplier C results hold no measurements', { supplier: SUPPLIER });
        const shots = Object.values(counts).reduce((a, b) => a + b, 0);
        const seconds = r.taskMetadata?.executionDuration;
        return {
          status: 'completed', remoteStatus: t.status, resultLocation: location,
          result: { counts, shots, execution_time: typeof seconds === 'number' ? secondsOfMs(seconds) : null, num_qubits: job.numQubits },
        };
      }
      default:
        throw supplierError('BACKEND_ERROR', `Supplier C reported an unknown status '${String(t.status)}'`, { supplier: SUPPLIER });
    }
  }

  async cancel(job: SupplierJob): Promise<'cancelled' | 'not_cancellable'> {
    const now = await this.observe(job);
    if (now.status !== 'queued') return 'not_cancellable';
    await this.api('PUT', `/quantum-task/${encodeURIComponent(job.remoteId!)}/cancel`, { clientToken: randomUUID() });
    return 'cancelled';
  }
}
