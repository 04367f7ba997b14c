/** GET /v2/backends and GET /v2/backends/{backend_id} — the catalog with live queue figures. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { deviceQueueStats } from '../../../platform/quantum-jobs/index.ts';
import { backendDetail, backendItem, catalogWithQueues, findBackend } from '../catalog.ts';
import { QcosError, qcosError } from '../errors.ts';
import { TAG_BACKENDS, security } from '../schemas.ts';
import type { QcosDeps } from './context.ts';

const Pricing = Type.Union([
  Type.Object({ rate_per_minute: Type.Number(), currency: Type.String() }),
  Type.Object({ rate_per_shot: Type.Number(), task_fee: Type.Number(), currency: Type.String() }),
]);

const Item = {
  id: Type.String(),
  provider: Type.String(),
  name: Type.String(),
  qubits: Type.Integer(),
  status: Type.String(),
  queue_length: Type.Integer({ description: 'Jobs waiting in this backend queue now' }),
  average_wait_minutes: Type.Number({ description: 'Mean wait between submission and start of the last 50 jobs started on this backend (by any quantum service)' }),
  features: Type.Array(Type.String()),
  pricing: Pricing,
};

export const BackendItem = Type.Object(Item, { $id: 'BackendItem' });
export const BackendDetail = Type.Object(
  {
    ...Item,
    type: Type.String(),
    processor: Type.String(),
    connectivity: Type.Object({ type: Type.String(), edges: Type.Array(Type.Array(Type.Integer())) }),
    basis_gates: Type.Array(Type.String()),
    max_shots: Type.Integer(),
    max_circuits: Type.Integer(),
    calibration: Type.Union([
      Type.Object({ last_updated: Type.String(), t1_us: Type.Number(), t2_us: Type.Number(), readout_error: Type.Number(), cx_error: Type.Number() }),
      Type.Null(),
    ]),
    maintenance: Type.Object({ next_scheduled: Type.Union([Type.String(), Type.Null()]), duration_hours: Type.Number() }),
    running_jobs: Type.Integer(),
    estimated_wait: Type.Integer({ description: 'Seconds a job submitted now should wait before it starts' }),
  },
  { $id: 'BackendDetail' },
);

export function registerBackends(app: ServiceApp, deps: QcosDeps): void {
  app.get(
    '/v2/backends',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG_BACKENDS],
        summary: 'Every backend: simulators and emulated devices, with queue figures and prices',
        security,
        response: { 200: Type.Object({ backends: Type.Array(BackendItem) }), '4xx': QcosError },
      },
    },
    async () => ({ backends: (await catalogWithQueues(deps.ctx)).map(({ backend, queue }) => backendItem(backend, queue)) }),
  );

  app.get(
    '/v2/backends/:backend_id',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG_BACKENDS],
        summary: 'One backend with its processor, connectivity, basis gates, limits and calibration',
        security,
        params: Type.Object({ backend_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: BackendDetail, '4xx': QcosError },
      },
    },
    async (req) => {
      const b = findBackend(req.params.backend_id);
      if (!b) throw qcosError('NOT_FOUND', `Backend '${req.params.backend_id}' not found`);
      const q = (await deviceQueueStats(deps.ctx, [b.id])).get(b.id);
      return backendDetail(b, q);
    },
  );
}
