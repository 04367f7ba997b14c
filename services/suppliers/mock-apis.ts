/**
 * Test support: one local HTTP server that answers as the three suppliers' public APIs are
 * documented to (supplier A's portal API under /aqt/api/v1, supplier B's runtime API under
 * /runtime/api/v1, supplier C's task API under /tasks with its object store under /store/{bucket}).
 * It checks what a real supplier would refuse (credentials, native gates, request shapes,
 * signatures) and runs the circuits it receives on the project's simulator, so the counts an
 * adapter reports prove that its translation was right.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { parseQasm, run } from '../../engines/quantum/index.ts';
import { signRequest } from './adapters/sigv4.ts';

export const TOKENS = { a: 'aqt-token-1', b: 'runtime-token-1', bApiKey: 'runtime-api-key-1', c: { accessKeyId: 'AKIDMOCK', secretAccessKey: 'mock/secret/key', region: 'eu-west-2' } };
export const C_DEVICE = 'arn:aws:braket:eu-west-2::device/qpu/mock/Grid-9';
/** Supplier B's mock backends and their instruction sets. */
const B_BASIS: Record<string, string[]> = { mock_eagle: ['cx', 'rz', 'sx', 'x'], mock_ecr: ['ecr', 'rz', 'sx', 'x'] };

interface MockJob {
  id: string;
  status: 'queued' | 'done' | 'cancelled' | 'error';
  qasm: string;
  shots: number;
  bucket?: string;
  prefix?: string;
}

export interface MockApis {
  url: string;
  /** Requests seen, as `METHOD path`. */
  seen: string[];
  /** While true, new jobs stay queued (to test cancel). */
  hold: boolean;
  /** When true, the next job ends in the supplier's error state. */
  failNext: boolean;
  problems: string[];
  /** Ends every held job (they read as completed from now on). */
  finishQueued(): void;
  close(): Promise<void>;
}

const angle = (halfTurns: number) => `${halfTurns * Math.PI}`;

/** Supplier A's operations back to OpenQASM, every qubit measured at the end (what the device does). */
function aqtToQasm(ops: any[], n: number): string {
  const lines = ['OPENQASM 2.0;', 'include "qelib1.inc";', `qreg q[${n}];`, `creg c[${n}];`];
  for (const op of ops) {
    if (op.operation === 'RZ') lines.push(`rz(${angle(op.phi)}) q[${op.qubit}];`);
    else if (op.operation === 'R') lines.push(`r(${angle(op.theta)},${angle(op.phi)}) q[${op.qubit}];`);
    else if (op.operation === 'RXX') lines.push(`rxx(${angle(op.theta)}) q[${op.qubits[0]}],q[${op.qubits[1]}];`);
  }
  lines.push('measure q -> c;');
  return lines.join('\n');
}

function countsToShots(counts: Record<string, number>): string[] {
  return Object.entries(counts).flatMap(([k, n]) => Array.from({ length: n }, () => k));
}

export async function startMockApis(): Promise<MockApis> {
  const jobs = new Map<string, MockJob>();
  const state: MockApis = {
    url: '', seen: [], hold: false, failNext: false, problems: [], close: async () => {},
    finishQueued: () => {
      for (const j of jobs.values()) if (j.status === 'queued') j.status = 'done';
    },
  };
  const store = new Map<string, string>();

  const newJob = (qasm: string, shots: number, extra: Partial<MockJob> = {}): MockJob => {
    const job: MockJob = { id: randomUUID(), status: state.hold ? 'queued' : 'done', qasm, shots, ...extra };
    if (state.failNext) {
      job.status = 'error';
      state.failNext = false;
    }
    jobs.set(job.id, job);
    return job;
  };
  const simulate = (j: MockJob) => run(parseQasm(j.qasm), { shots: j.shots, seed: 7 }).counts;

  const handle = async (req: IncomingMessage, body: string, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://mock');
    const path = url.pathname;
    const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    state.seen.push(`${req.method} ${path}`);

    if (path.startsWith('/aqt/api/v1/')) {
      if (req.headers.authorization !== `Bearer ${TOKENS.a}`) return json(401, { detail: 'invalid token' });
      const p = path.slice('/aqt/api/v1'.length);
      if (req.method === 'GET' && p === '/workspaces') return json(200, [{ id: 'ws-lab', resources: [{ id: 'ibex', name: 'IBEX', type: 'device' }] }]);
      if (req.method === 'GET' && p === '/resources/ibex') return json(200, { id: 'ibex', name: 'IBEX', type: 'device', available_qubits: 12 });
      if (req.method === 'POST' && p === '/submit/ws-lab/ibex') {
        const b = JSON.parse(body);
        const circuit = b.payload?.circuits?.[0];
        if (b.job_type !== 'quantum_circuit' || !circuit) return json(422, { detail: 'bad job' });
        for (const op of circuit.quantum_circuit) {
          const ok = (op.operation === 'RZ' && Number.isFinite(op.phi))
            || (op.operation === 'R' && op.theta >= 0 && op.theta <= 1 && op.phi >= 0 && op.phi <= 2)
            || (op.operation === 'RXX' && op.theta >= 0 && op.theta <= 0.5 && op.qubits.length === 2)
            || op.operation === 'MEASURE';
          if (!ok) {
            state.problems.push(`aqt op ${JSON.stringify(op)}`);
            return json(422, { detail: `invalid operation ${JSON.stringify(op)}` });
          }
        }
        if (circuit.quantum_circuit.at(-1).operation !== 'MEASURE') return json(422, { detail: 'MEASURE must come last' });
        const job = newJob(aqtToQasm(circuit.quantum_circuit, circuit.number_of_qubits), circuit.repetitions);
        return json(200, { job: { job_id: job.id, job_type: 'quantum_circuit', label: b.label, resource_id: 'ibex', workspace_id: 'ws-lab' }, response: { status: 'queued' } });
      }
      const result = /^\/result\/([\w-]+)$/.exec(p);
      if (req.method === 'GET' && result) {
        const j = jobs.get(result[1]!);
        if (!j) return json(404, { detail: 'unknown job' });
        const head = { job_id: j.id, job_type: 'quantum_circuit', label: 'x', resource_id: 'ibex', workspace_id: 'ws-lab' };
        if (j.status === 'queued') return json(200, { job: head, response: { status: 'queued' } });
        if (j.status === 'cancelled') return json(200, { job: head, response: { status: 'cancelled' } });
        if (j.status === 'error') return json(200, { job: head, response: { status: 'error', message: 'ion lost' } });
        // samples list qubit 0 first
        const samples = countsToShots(simulate(j)).map((k) => [...k].reverse().map(Number));
        return json(200, { job: head, response: { status: 'finished', result: { 0: samples } } });
      }
      const del = /^\/jobs\/([\w-]+)$/.exec(p);
      if (req.method === 'DELETE' && del) {
        const j = jobs.get(del[1]!);
        if (!j) return json(404, { detail: 'unknown job' });
        j.status = 'cancelled';
        return json(200, { job_id: j.id, status: 'cancelled' });
      }
    }

    if (path === '/iam/identity/token') {
      const form = new URLSearchParams(body);
      if (form.get('grant_type') !== 'urn:ibm:params:oauth:grant-type:apikey' || form.get('apikey') !== TOKENS.bApiKey) return json(400, { errorMessage: 'Provided API key could not be found.' });
      state.seen.push('token issued');
      return json(200, { access_token: TOKENS.b, refresh_token: 'not_supported', token_type: 'Bearer', expires_in: 3600, expiration: Math.floor(Date.now() / 1000) + 3600, scope: 'ibm_openid' });
    }

    if (path.startsWith('/runtime/api/v1/')) {
      if (req.headers.authorization !== `Bearer ${TOKENS.b}` || req.headers['service-crn'] !== 'crn:mock:instance') return json(401, { errors: [{ message: 'unauthorized' }] });
      const p = path.slice('/runtime/api/v1'.length);
      if (req.method === 'GET' && p === '/backends') return json(200, { devices: Object.keys(B_BASIS) });
      const conf = /^\/backends\/(\w+)\/(configuration|status)$/.exec(p);
      if (req.method === 'GET' && conf && conf[1]! in B_BASIS) {
        const name = conf[1]!;
        if (conf[2] === 'status') return json(200, { state: true, status: 'active', backend_name: name, pending_jobs: 0 });
        // A line of 5 qubits; the ECR device's couplings are one-way, as such devices' are.
        const edges = name === 'mock_ecr' ? [[0, 1], [2, 1], [2, 3], [4, 3]] : [[0, 1], [1, 0], [1, 2], [2, 1], [2, 3], [3, 2], [3, 4], [4, 3]];
        return json(200, { backend_name: name, n_qubits: 5, simulator: false, basis_gates: B_BASIS[name], coupling_map: edges, max_shots: 100000, processor_type: { family: 'Eagle', revision: 3 } });
      }
      if (req.method === 'POST' && p === '/jobs') {
        const b = JSON.parse(body);
        const qasm = b.params?.pubs?.[0]?.[0];
        const basis = B_BASIS[b.backend as string];
        if (!basis) return json(404, { errors: [{ message: `backend ${b.backend} not found` }] });
        if (b.program_id !== 'sampler' || b.params?.version !== 2 || typeof qasm !== 'string') return json(400, { errors: [{ message: 'bad request' }] });
        if (!/^OPENQASM 3/.test(qasm)) return json(400, { errors: [{ message: 'pubs must be OpenQASM 3' }] });
        const gateOps = parseQasm(qasm).ops.filter((o) => o.kind === 'gate') as Array<{ name: string; qubits: number[] }>;
        const foreign = gateOps.map((o) => o.name).filter((g) => !basis.includes(g));
        if (b.backend === 'mock_ecr') {
          const allowed = new Set(['0,1', '2,1', '2,3', '4,3']);
          const wrong = gateOps.filter((o) => o.qubits.length === 2 && !allowed.has(o.qubits.join(',')));
          if (wrong.length) foreign.push(...wrong.map((o) => `${o.name} ${o.qubits.join(',')} (not a coupling)`));
        }
        if (foreign.length) {
          state.problems.push(`runtime non-ISA gates ${foreign.join(',')}`);
          return json(400, { errors: [{ message: `circuit is not ISA: ${foreign.join(', ')}` }] });
        }
        const pub = b.params.pubs[0];
        const job = newJob(qasm, pub[2] ?? b.params.shots ?? 4096);
        return json(200, { id: job.id, backend: b.backend });
      }
      const m = /^\/jobs\/([\w-]+)(\/results|\/cancel)?$/.exec(p);
      if (m) {
        const j = jobs.get(m[1]!);
        if (!j) return json(404, { errors: [{ message: 'job not found' }] });
        if (req.method === 'POST' && m[2] === '/cancel') {
          j.status = 'cancelled';
          return res.writeHead(204).end();
        }
        if (req.method === 'GET' && m[2] === '/results') {
          const circuit = parseQasm(j.qasm);
          const shots = countsToShots(simulate(j));
          const data: Record<string, { samples: string[]; num_bits: number }> = {};
          for (const r of circuit.cregs) {
            data[r.name] = { num_bits: r.size, samples: shots.map((k) => `0x${BigInt(`0b${k.slice(k.length - r.offset - r.size, k.length - r.offset)}`).toString(16)}`) };
          }
          return json(200, { results: [{ data, metadata: {} }], metadata: { version: 2 } });
        }
        if (req.method === 'GET' && !m[2]) {
          const status = { queued: 'Queued', done: 'Completed', cancelled: 'Cancelled', error: 'Failed' }[j.status];
          return json(200, { id: j.id, status, state: { status, ...(j.status === 'error' ? { reason: 'calibration drift' } : {}) }, usage: { quantum_seconds: 2, seconds: 2 } });
        }
      }
    }

    if (path.startsWith('/tasks/') || path.startsWith('/store/')) {
      const service = path.startsWith('/store/') ? 's3' : 'braket';
      const headers: Record<string, string> = {};
      if (req.headers['content-type']) headers['content-type'] = String(req.headers['content-type']);
      const expected = await signRequest({ method: req.method!, url: `${state.url}${req.url}`, headers, body: body || undefined }, TOKENS.c, {
        region: TOKENS.c.region, service, now: new Date(Date.parse(String(req.headers['x-amz-date']).replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'))),
      });
      if (req.headers.authorization !== expected.authorization) {
        state.problems.push(`signature mismatch on ${req.method} ${path}`);
        return json(403, { message: 'The request signature we calculated does not match the signature you provided.' });
      }
      if (service === 's3') {
        const text = store.get(path.slice('/store/'.length));
        return text ? res.writeHead(200, { 'content-type': 'application/json' }).end(text) : json(404, { message: 'NoSuchKey' });
      }
      const p = decodeURIComponent(path.slice('/tasks'.length));
      if (req.method === 'POST' && p === '/devices') return json(200, { devices: [{ deviceArn: C_DEVICE, deviceName: 'Grid-9', deviceStatus: 'ONLINE', deviceType: 'QPU', providerName: 'Mock' }] });
      if (req.method === 'GET' && p === `/device/${C_DEVICE}`) return json(200, { deviceArn: C_DEVICE, deviceCapabilities: JSON.stringify({ paradigm: { qubitCount: 9 }, service: { shotsRange: [1, 50000] } }) });
      if (req.method === 'POST' && p === '/quantum-task') {
        const b = JSON.parse(body);
        const action = JSON.parse(b.action);
        if (action.braketSchemaHeader?.name !== 'braket.ir.openqasm.program' || !/^OPENQASM 3/.test(action.source) || b.deviceArn !== C_DEVICE || !b.outputS3Bucket || !b.clientToken) {
          return json(400, { message: 'ValidationException' });
        }
        // The devices know their gates by these names, with no definitions and no includes.
        const BRAKET_GATES = new Set(['cnot', 'cz', 'rz', 'rx', 'ry', 'v', 'vi', 'x', 'y', 'z', 'h', 's', 'si', 't', 'ti', 'swap', 'measure']);
        const lines = String(action.source).split('\n').map((l: string) => l.trim()).filter((l: string) => l && !/^(OPENQASM|qubit|bit)\b/.test(l));
        const unknown = lines.map((l: string) => /^(?:\w+(?:\[\d+\])?\s*=\s*)?(\w+)/.exec(l)?.[1] ?? l).filter((g: string) => !BRAKET_GATES.has(g));
        if (unknown.length) {
          state.problems.push(`task program uses ${[...new Set(unknown)].join(', ')}`);
          return json(400, { message: `ValidationException: unsupported ${[...new Set(unknown)].join(', ')}` });
        }
        const source = String(action.source).replace(/^(\s*)cnot\b/gm, '$1cx').replace(/^(\s*)v\b/gm, '$1sx').replace('OPENQASM 3.0;', 'OPENQASM 3.0;\ninclude "stdgates.inc";');
        const job = newJob(source, b.shots, { bucket: b.outputS3Bucket, prefix: b.outputS3KeyPrefix });
        const circuit = parseQasm(source);
        const measured = [...new Set(circuit.ops.flatMap((o) => (o.kind === 'measure' ? [o.qubit] : [])))].sort((x, y) => x - y);
        const byClbit = new Map(circuit.ops.flatMap((o) => (o.kind === 'measure' ? [[o.qubit, o.clbit] as const] : [])));
        const shots = countsToShots(simulate(job));
        // Per shot, one value per measured qubit in measuredQubits order.
        const measurements = shots.map((k) => measured.map((q) => Number(k[k.length - 1 - byClbit.get(q)!])));
        store.set(`${b.outputS3Bucket}/${b.outputS3KeyPrefix}/${job.id}/results.json`, JSON.stringify({ measurements, measuredQubits: measured, taskMetadata: { shots: b.shots, executionDuration: 1200 } }));
        return json(201, { quantumTaskArn: `arn:aws:braket:eu-west-2:123:quantum-task/${job.id}` });
      }
      const m = /^\/quantum-task\/arn:aws:braket:eu-west-2:123:quantum-task\/([\w-]+)(\/cancel)?$/.exec(p);
      if (m) {
        const j = jobs.get(m[1]!);
        if (!j) return json(404, { message: 'ResourceNotFoundException' });
        const arn = `arn:aws:braket:eu-west-2:123:quantum-task/${j.id}`;
        if (req.method === 'PUT' && m[2]) {
          j.status = 'cancelled';
          return json(200, { cancellationStatus: 'CANCELLING', quantumTaskArn: arn });
        }
        const status = { queued: 'QUEUED', done: 'COMPLETED', cancelled: 'CANCELLED', error: 'FAILED' }[j.status];
        return json(200, { quantumTaskArn: arn, status, shots: j.shots, outputS3Bucket: j.bucket, outputS3Directory: `${j.prefix}/${j.id}`, ...(j.status === 'error' ? { failureReason: 'device fault' } : {}) });
      }
    }
    json(404, { message: `no route ${req.method} ${path}` });
  };

  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => void handle(req, body, res).catch((err) => res.writeHead(500).end(String(err))));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  state.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  state.close = () => new Promise<void>((r) => server.close(() => r()));
  return state;
}
