/**
 * Response schemas for the documentation. Every object allows more properties than it names
 * (the serializer would otherwise drop fields a route adds), and every nullable field says so
 * (it would otherwise print null as 0 or "").
 */
import { Type, type TSchema } from 'typebox';
import { SupplierErrorBody } from '../errors.ts';

const open = <T extends Record<string, TSchema>>(props: T, description?: string) => Type.Object(props, { additionalProperties: true, ...(description ? { description } : {}) });
const nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** The keys' two header styles, as OpenAPI security requirements. */
export const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { bearer: [] }];

/** The error body on every failure. */
export const errors = { '4xx': SupplierErrorBody, '5xx': SupplierErrorBody };

const Counts = Type.Record(Type.String(), Type.Integer(), { description: 'Bit string (highest classical bit first) -> shots' });
const Common = {
  created_at: nullable(Type.String({ format: 'date-time' })),
  completed_at: nullable(Type.String({ format: 'date-time' })),
  estimated_cost_usd: nullable(Type.Number()),
  cost_usd: nullable(Type.Number({ description: 'Charged once the job ended' })),
};

export const ExecuteA = open({ job_id: Type.String(), status: Type.String(), provider: Type.String(), target: Type.String(), estimated_cost: Type.Number() });
export const StatusA = open({ job_id: Type.String(), status: Type.String(), provider: Type.String(), target: Type.String(), result: nullable(open({ counts: Counts, shots: Type.Integer() })), ...Common });
export const EstimateA = open({
  provider: Type.String(), target: Type.String(), estimated_cost_usd: Type.Number(), currency: Type.String(),
  cost_breakdown: open({ aqt: Type.Number(), rate_per_aqt: Type.Number() }),
});
export const ExecuteB = open({ job_id: Type.String(), status: Type.String(), backend: Type.String() });
export const StatusB = open({ job_id: Type.String(), status: Type.String(), backend: Type.String(), result: nullable(open({ counts: Counts, shots: Type.Integer(), execution_time: nullable(Type.Number()) })), ...Common });
export const EstimateB = open({ backend: Type.String(), estimated_cost_qsh: Type.Number({ description: 'US dollars on the quantum-second schedule' }), quantum_seconds: Type.Number(), shots: Type.Integer() });
export const ExecuteC = open({ task_id: Type.String(), status: Type.String({ description: 'Upper case, e.g. QUEUED' }), device: Type.String(), shots: Type.Integer() });
export const StatusC = open({
  task_id: Type.String(), status: Type.String(), device: Type.String(), shots: Type.Integer(), result: nullable(open({ counts: Counts, shots: Type.Integer() })),
  storage_result_location: nullable(Type.String()), ...Common,
});
export const EstimateC = open({ device: Type.String(), estimated_cost_usd: Type.Number(), pricing: open({ per_shot: Type.Number(), shots: Type.Integer(), task_fee: Type.Number() }) });
export const ExecuteLegacy = open({ job_id: Type.String(), status: Type.String(), message: Type.String(), estimated_time_seconds: Type.Integer(), backend: Type.String() });
export const StatusLegacy = open({
  job_id: Type.String(), status: Type.String(),
  result: nullable(open({ counts: Counts, num_qubits: Type.Integer(), shots: Type.Integer(), execution_time_seconds: nullable(Type.Number()), backend: Type.String(), device: Type.String() })),
  created_at: nullable(Type.String({ format: 'date-time' })), completed_at: nullable(Type.String({ format: 'date-time' })),
});

export const ProvidersA = open({
  providers: Type.Array(open({ id: Type.String(), name: Type.String(), num_qubits: Type.Integer(), targets: Type.Array(Type.String()), description: Type.String(), cost_model: Type.String() })),
});
export const BackendsB = open({
  backends: Type.Array(open({ name: Type.String(), num_qubits: Type.Integer(), type: Type.String(), status: Type.String(), cost: open({}), processor: Type.String() })),
});
export const DevicesC = open({
  devices: Type.Array(open({ arn: Type.String(), name: Type.String(), type: Type.String(), num_qubits: Type.Integer(), status: Type.String(), note: Type.Optional(Type.String()) })),
});
