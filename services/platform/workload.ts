/**
 * The workload object of POST /api/v1/platform/execution/jobs: its schema (the spec's fields,
 * plus `backend` and `max_runtime_seconds`, which the spec leaves open) and the checks that
 * turn a body into a runnable, priced job. Every refusal here happens before anything is
 * written or held.
 */
import { availableParallelism, totalmem } from 'node:os';
import { Type, type Static } from 'typebox';
import { getBackend, type Backend } from '../../engines/quantum/backends.ts';
import { readArtifact } from './artifact.ts';
import { CommandError, toArgv } from './command.ts';
import { platformError } from './errors.ts';
import type { PlatformPlan } from './plans.ts';
import { circuitPrice, computePrice, type Price } from './pricing.ts';

export const WORKLOAD_TYPES = ['QUANTUM_CIRCUIT', 'GPU_JOB', 'CPU_JOB'] as const;
export type WorkloadType = (typeof WORKLOAD_TYPES)[number];

export const DEFAULT_RUNTIME_SECONDS = 300;
export const MAX_RUNTIME_SECONDS = 3600;
export const DEFAULT_SHOTS = 1000;
const label = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }));
const CommandField = (description: string) =>
  Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 65_536 }), Type.Array(Type.String({ maxLength: 16_384 }), { minItems: 1, maxItems: 256 })], { description }));

export const WorkloadIn = Type.Object(
  {
    type: Type.String({ enum: [...WORKLOAD_TYPES], description: 'What runs: a circuit on the job system, or a command in the sandbox' }),
    shots: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: `Circuit shots (default ${DEFAULT_SHOTS})` })),
    qasm: Type.Optional(Type.String({ minLength: 1, maxLength: 262_144, description: 'OpenQASM 2 or 3; required for circuits unless artifact_uri is given' })),
    artifact_uri: Type.Optional(Type.String({ minLength: 1, maxLength: 400_000, description: 'data:, http: or https: URI of the QASM' })),
    backend: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Catalog backend of a circuit (default statevector_simulator)' })),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 4294967295, description: 'Simulator seed: same seed, same counts' })),
    command: CommandField('Program and arguments of a CPU or GPU job: a string split like shell words (no shell runs it), or an array'),
    setup: CommandField('A command run first in the same working directory; the job stops when it fails'),
    image: label('Recorded with the job; the sandbox runs the host runtime'),
    kind: label('Free label of the job (recorded)'),
    resource_type: label('Free label of the resource class (recorded)'),
    gpu: Type.Optional(Type.Union([Type.Boolean(), Type.String({ minLength: 1, maxLength: 100 })], { description: 'GPU model wanted, or true' })),
    num_gpus: Type.Optional(Type.Integer({ minimum: 0, maximum: 16 })),
    cpus: Type.Optional(Type.Integer({ minimum: 1, maximum: 256, description: 'CPUs the command may use (default 1)' })),
    memory_gb: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1024, description: 'Address-space limit of the command (default 1)' })),
    max_runtime_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RUNTIME_SECONDS, description: `Wall-clock limit (default ${DEFAULT_RUNTIME_SECONDS}); the hold covers all of it` })),
    region: label('Recorded with the job'),
    cloud: label('Recorded with the job'),
  },
  { additionalProperties: false },
);
export type WorkloadBody = Static<typeof WorkloadIn>;

/** What the job runs, as stored with it. */
export interface Workload {
  type: WorkloadType;
  max_runtime_seconds: number;
  labels: { image: string | null; kind: string | null; resource_type: string | null; region: string | null; cloud: string | null };
  circuit?: { qasm: string; source: 'inline' | 'artifact'; artifact_uri: string | null; backend: string; shots: number; seed: number | null };
  compute?: { argv: string[]; setup: string[] | null; cpus: number; memory_gb: number; gpus: number; gpu: string | null };
}

export interface Accepted {
  workload: Workload;
  backend: Backend | null;
  price: Price;
}

function labels(b: WorkloadBody): Workload['labels'] {
  return { image: b.image ?? null, kind: b.kind ?? null, resource_type: b.resource_type ?? null, region: b.region ?? null, cloud: b.cloud ?? null };
}

/** Checks a body against the plan and the host, reads its artifact, and prices it. */
export async function acceptWorkload(b: WorkloadBody, plan: PlatformPlan): Promise<Accepted> {
  const type = b.type as WorkloadType;
  const runtime = b.max_runtime_seconds ?? DEFAULT_RUNTIME_SECONDS;
  if (type === 'QUANTUM_CIRCUIT') {
    for (const f of ['command', 'setup', 'cpus', 'memory_gb', 'num_gpus', 'gpu'] as const) {
      if (b[f] !== undefined) throw platformError('invalid_request', `${f} is for CPU_JOB and GPU_JOB workloads`, { field: f });
    }
    if (b.qasm !== undefined && b.artifact_uri !== undefined) throw platformError('invalid_request', 'give qasm or artifact_uri, not both', {});
    if (b.qasm === undefined && b.artifact_uri === undefined) throw platformError('invalid_request', 'a QUANTUM_CIRCUIT workload needs qasm or artifact_uri', { field: 'qasm' });
    const backendId = b.backend ?? 'statevector_simulator';
    const backend = getBackend(backendId);
    if (!backend) throw platformError('invalid_backend', `Unknown backend '${backendId}'`, { backend: backendId });
    if (plan.simulatorsOnly && backend.type !== 'simulator') {
      throw platformError('plan_forbids_backend', `The ${plan.name} plan runs simulators only; '${backendId}' is a device`, { backend: backendId, plan: plan.name });
    }
    const shots = b.shots ?? DEFAULT_SHOTS;
    if (plan.maxShots !== null && shots > plan.maxShots) {
      throw platformError('shots_exceeded', `The ${plan.name} plan allows at most ${plan.maxShots} shots per job`, { shots, max_shots: plan.maxShots });
    }
    if (shots > backend.max_shots) throw platformError('shots_exceeded', `At most ${backend.max_shots} shots on ${backendId}`, { shots, max_shots: backend.max_shots });
    const qasm = b.qasm ?? (await readArtifact(b.artifact_uri!));
    return {
      workload: {
        type,
        max_runtime_seconds: runtime,
        labels: labels(b),
        circuit: { qasm, source: b.qasm !== undefined ? 'inline' : 'artifact', artifact_uri: b.artifact_uri ?? null, backend: backend.id, shots, seed: b.seed ?? null },
      },
      backend,
      price: circuitPrice(backend, qasm, shots),
    };
  }
  for (const f of ['qasm', 'artifact_uri', 'backend', 'shots', 'seed'] as const) {
    if (b[f] !== undefined) throw platformError('invalid_request', `${f} is for QUANTUM_CIRCUIT workloads`, { field: f });
  }
  if (plan.simulatorsOnly) throw platformError('plan_forbids_workload', `The ${plan.name} plan runs quantum circuits on simulators only, not ${type}`, { type, plan: plan.name });
  if (b.command === undefined) throw platformError('invalid_command', `a ${type} workload needs a command`, { field: 'command' });
  let argv: string[];
  let setup: string[] | null;
  try {
    argv = toArgv(b.command, 'command');
    setup = b.setup === undefined ? null : toArgv(b.setup, 'setup');
  } catch (err) {
    if (err instanceof CommandError) throw platformError('invalid_command', err.message, {});
    throw err;
  }
  const wantsGpu = b.gpu !== undefined && b.gpu !== false;
  const gpus = b.num_gpus ?? (type === 'GPU_JOB' || wantsGpu ? 1 : 0);
  if (type === 'CPU_JOB' && (gpus > 0 || wantsGpu)) throw platformError('invalid_request', 'a CPU_JOB asks for no GPU; use GPU_JOB', { num_gpus: gpus });
  if (type === 'GPU_JOB' && gpus < 1) throw platformError('invalid_request', 'a GPU_JOB needs num_gpus of at least 1', { num_gpus: gpus });
  const cpus = b.cpus ?? 1;
  const memory = b.memory_gb ?? 1;
  const hostCpus = availableParallelism();
  const hostGb = Math.floor(totalmem() / 2 ** 30);
  if (cpus > hostCpus) throw platformError('resources_exceeded', `${cpus} CPUs asked, this host has ${hostCpus}`, { cpus, available_cpus: hostCpus });
  if (memory > hostGb) throw platformError('resources_exceeded', `${memory} GB asked, this host has ${hostGb} GB`, { memory_gb: memory, available_memory_gb: hostGb });
  const resources = { cpus, memory_gb: memory, gpus };
  return {
    workload: {
      type,
      max_runtime_seconds: runtime,
      labels: labels(b),
      compute: { argv, setup, ...resources, gpu: typeof b.gpu === 'string' ? b.gpu : null },
    },
    backend: null,
    price: computePrice(resources),
  };
}
