/**
 * Supplier B's public runtime REST API (the IBM-style Qiskit Runtime API, as its public SDK
 * uses it): `GET /backends` and `GET /backends/{name}/configuration` list targets; `POST /jobs`
 * runs the `sampler` primitive on `{pubs: [[<OpenQASM 3 circuit in the backend's ISA>, null,
 * shots]], version: 2}`; `GET /jobs/{id}` polls (`Queued`, `Running`, `Completed`, `Failed`,
 * `Cancelled`) and `GET /jobs/{id}/results` returns per-register hex samples;
 * `POST /jobs/{id}/cancel` cancels. Authentication: `Authorization: Bearer <token>` (a token
 * given, or one exchanged for an API key at the IAM token endpoint) and, for a cloud
 * instance, `Service-CRN: <instance>`.
 */
import { getBackend, parseQasm, toQasm, type Backend, type Circuit } from '../../../engines/quantum/index.ts';
import { optimizeFor } from '../../../platform/quantum-jobs/index.ts';
import { CLASS_DEVICE, type SupplierTarget } from '../catalog.ts';
import type { CircuitInfo } from '../circuit.ts';
import type { SupplierBConfig } from '../config.ts';
import { supplierError } from '../errors.ts';
import type { SupplierJob } from '../store.ts';
import { callSupplier, jsonCall } from './http.ts';
import type { Observed, Submitted, SupplierAdapter } from './types.ts';

const SUPPLIER = 'supplier_b_quantum';

interface Configuration {
  backend_name?: string;
  n_qubits: number;
  simulator?: boolean;
  basis_gates?: string[];
  coupling_map?: Array<[number, number]> | null;
  max_shots?: number;
  processor_type?: { family?: string; revision?: string | number };
}

interface JobBody {
  id: string;
  backend?: string;
  status: string;
  state?: { status?: string; reason?: string };
  usage?: { quantum_seconds?: number; seconds?: number };
}

interface SamplerResult {
  results: Array<{ data: Record<string, { samples: string[]; num_bits: number }> }>;
}

/** Counts from the sampler's per-register hex samples: registers in declaration order, the last one leftmost. */
export function countsFromSamples(result: SamplerResult, circuit: Circuit): Record<string, number> {
  const data = result.results?.[0]?.data ?? {};
  const regs = circuit.cregs.length ? circuit.cregs : Object.keys(data).map((name) => ({ name, size: data[name]!.num_bits, offset: 0 }));
  const shots = Math.max(0, ...regs.map((r) => data[r.name]?.samples.length ?? 0));
  const out: Record<string, number> = {};
  for (let i = 0; i < shots; i++) {
    let key = '';
    for (const r of [...regs].reverse()) {
      const hex = data[r.name]?.samples[i] ?? '0x0';
      key += BigInt(hex).toString(2).padStart(r.size, '0').slice(-r.size);
    }
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

/**
 * Each cx(c, t) as x(c); ecr(c, t); rz(pi/2)(c); sx(t), equal up to a global phase (checked
 * against the simulator in adapters.test.ts), so a routed cx circuit runs on an ECR device.
 */
export function cxToEcr(c: Circuit): Circuit {
  const ops: Circuit['ops'] = [];
  for (const op of c.ops) {
    if (op.kind !== 'gate' || op.name !== 'cx' || op.condition || op.controls) {
      ops.push(op);
      continue;
    }
    const [ctl, tgt] = op.qubits as [number, number];
    ops.push(
      { kind: 'gate', name: 'x', qubits: [ctl], params: [] },
      { kind: 'gate', name: 'ecr', qubits: [ctl, tgt], params: [] },
      { kind: 'gate', name: 'rz', qubits: [ctl], params: [Math.PI / 2] },
      { kind: 'gate', name: 'sx', qubits: [tgt], params: [] },
    );
  }
  return { ...c, ops };
}

export class SupplierBAdapter implements SupplierAdapter {
  readonly supplier = SUPPLIER;
  readonly mode = 'remote' as const;
  private readonly configs = new Map<string, Configuration>();
  constructor(private readonly config: SupplierBConfig) {}

  private bearer: { token: string; until: number } | null = null;

  /** The configured token, or one exchanged for the API key and reused until a minute before it expires. */
  private async token(): Promise<string> {
    if (this.config.token) return this.config.token;
    if (this.bearer && Date.now() < this.bearer.until) return this.bearer.token;
    const { text } = await callSupplier(SUPPLIER, {
      method: 'POST',
      url: this.config.iamUrl!,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'urn:ibm:params:oauth:grant-type:apikey', apikey: this.config.apiKey ?? '' }).toString(),
    });
    const t = JSON.parse(text) as { access_token?: string; expires_in?: number };
    if (!t.access_token) throw supplierError('SUPPLIER_NOT_CONFIGURED', 'Supplier B issued no token for the configured API key', { supplier: SUPPLIER });
    this.bearer = { token: t.access_token, until: Date.now() + Math.max(0, (t.expires_in ?? 3600) - 60) * 1000 };
    return t.access_token;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${await this.token()}` };
    if (this.config.instance) headers['service-crn'] = this.config.instance;
    return jsonCall<T>(SUPPLIER, { method, url: `${this.config.url}${path}`, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  private async configuration(name: string): Promise<Configuration> {
    let c = this.configs.get(name);
    if (!c) {
      c = await this.call<Configuration>('GET', `/backends/${encodeURIComponent(name)}/configuration`);
      this.configs.set(name, c);
    }
    return c;
  }

  async targets(): Promise<SupplierTarget[]> {
    const list = await this.call<{ devices: string[] }>('GET', '/backends');
    const device = getBackend(CLASS_DEVICE.supplier_b_quantum)!;
    const out: SupplierTarget[] = [];
    for (const name of list.devices ?? []) {
      const [c, s] = await Promise.all([
        this.configuration(name),
        this.call<{ state?: boolean; status?: string }>('GET', `/backends/${encodeURIComponent(name)}/status`),
      ]);
      out.push({
        supplier: SUPPLIER, id: name, name, provider: SUPPLIER, type: c.simulator ? 'simulator' : 'qpu', numQubits: c.n_qubits,
        status: s.state === false ? 'OFFLINE' : 'ONLINE', backend: device.id, maxShots: c.max_shots ?? 100_000,
        basisGates: c.basis_gates ?? device.basis_gates, mode: 'remote',
        processor: [c.processor_type?.family, c.processor_type?.revision].filter((x) => x !== undefined).join(' r') || name,
      });
    }
    return out;
  }

  /** The circuit in the backend's instruction set and layout (the runtime accepts only ISA circuits). */
  private async isaCircuit(qasm: string, name: string): Promise<string> {
    const c = await this.configuration(name);
    const device = getBackend(CLASS_DEVICE.supplier_b_quantum)!;
    const basis = c.basis_gates ?? device.basis_gates;
    // The optimizer targets cx/cz-style entanglers; an ECR device is routed for cx first.
    const viaCx = basis.includes('ecr') && !basis.some((g) => ['cx', 'cz', 'rzz', 'rxx', 'cp'].includes(g));
    const target: Backend = { ...device, id: name, qubits: c.n_qubits, basis_gates: viaCx ? basis.map((g) => (g === 'ecr' ? 'cx' : g)) : basis, coupling_map: c.coupling_map ?? null };
    const routed = optimizeFor(parseQasm(qasm), qasm, target, 1).circuit;
    return toQasm(viaCx ? cxToEcr(routed) : routed, 3);
  }

  async submit(job: SupplierJob, _info: CircuitInfo, target: SupplierTarget): Promise<Submitted> {
    const isa = await this.isaCircuit(job.qasm, target.id);
    const res = await this.call<{ id: string; backend?: string }>('POST', '/jobs', {
      program_id: 'sampler',
      backend: target.id,
      // A pub is [circuit, parameter values, shots].
      params: { pubs: [[isa, null, job.shots]], version: 2 },
    });
    if (!res.id) throw supplierError('BACKEND_ERROR', 'Supplier B accepted the job without an id', { supplier: SUPPLIER });
    return { remoteId: res.id, remoteStatus: 'Queued' };
  }

  async observe(job: SupplierJob): Promise<Observed> {
    const res = await this.call<JobBody>('GET', `/jobs/${encodeURIComponent(job.remoteId!)}`);
    const s = res.state?.status ?? res.status;
    switch (s) {
      case 'Queued':
        return { status: 'queued', remoteStatus: s };
      case 'Running':
        return { status: 'running', remoteStatus: s };
      case 'Cancelled':
        return { status: 'cancelled', remoteStatus: s };
      case 'Failed':
        return { status: 'failed', remoteStatus: s, error: { code: 'JOB_FAILED', message: res.state?.reason ?? 'Supplier B reported a failure' } };
      case 'Completed': {
        const results = await this.call<SamplerResult>('GET', `/jobs/${encodeURIComponent(job.remoteId!)}/results`);
        const counts = countsFromSamples(results, parseQasm(job.qasm));
        const shots = Object.values(counts).reduce((a, b) => a + b, 0);
        return { status: 'completed', remoteStatus: s, result: { counts, shots, execution_time: res.usage?.quantum_seconds ?? null, num_qubits: job.numQubits } };
      }
      default:
        throw supplierError('BACKEND_ERROR', `Supplier B reported an unknown status '${String(s)}'`, { supplier: SUPPLIER });
    }
  }

  async cancel(job: SupplierJob): Promise<'cancelled' | 'not_cancellable'> {
    const now = await this.observe(job);
    if (now.status !== 'queued') return 'not_cancellable';
    await this.call('POST', `/jobs/${encodeURIComponent(job.remoteId!)}/cancel`);
    return 'cancelled';
  }
}
