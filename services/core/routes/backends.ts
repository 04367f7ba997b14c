/** GET /api/v2/backends and /api/v2/backends/{backend_id} — the engine's catalog with live queue depths. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { averageFidelity, getBackend, listBackends, nativeGates, type Backend } from '../catalog.ts';
import { coreError, responses } from '../errors.ts';
import { keySecurity, type CoreDeps } from './context.ts';

const BackendItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.Union([Type.Literal('simulator'), Type.Literal('hardware')], { description: 'hardware: an emulated device with calibrated noise' }),
  qubits: Type.Integer(),
  status: Type.String({ description: '`online`' }),
  queue_depth: Type.Integer({ description: 'jobs of every account waiting or running on this backend now' }),
});

const BackendDetail = Type.Object({
  ...BackendItem.properties,
  native_gates: Type.Array(Type.String()),
  connectivity: Type.Object({
    all_to_all: Type.Boolean(),
    coupling_map: Type.Union([Type.Array(Type.Array(Type.Integer())), Type.Null()], {
      description: 'directed pairs [control, target] a two-qubit gate may act on; null when every pair may',
    }),
  }),
  average_fidelity: Type.Number({ description: 'mean of the calibrated one-qubit, two-qubit and readout fidelities' }),
  max_shots: Type.Integer(),
  max_circuits: Type.Integer(),
});

function item(b: Backend, depths: Record<string, number>) {
  return { id: b.id, name: b.name, type: b.type, qubits: b.qubits, status: 'online', queue_depth: depths[b.id] ?? 0 };
}

export function registerBackends(app: ServiceApp, deps: CoreDeps): void {
  app.get(
    '/api/v2/backends',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Backends'],
        summary: 'Every backend: the ideal simulators and the emulated devices',
        security: keySecurity,
        response: responses(Type.Object({ backends: Type.Array(BackendItem) })),
      },
    },
    async () => {
      const depths = await deps.jobs.queueDepths();
      return ok({ backends: listBackends().map((b) => item(b, depths)) });
    },
  );

  app.get(
    '/api/v2/backends/:backend_id',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Backends'],
        summary: 'One backend with its native gates, connectivity and average fidelity',
        security: keySecurity,
        params: Type.Object({ backend_id: Type.String({ maxLength: 128 }) }),
        response: responses(BackendDetail),
      },
    },
    async (req) => {
      const b = getBackend(req.params.backend_id);
      if (!b) throw coreError('NOT_FOUND', `Backend '${req.params.backend_id}' not found`);
      const depths = await deps.jobs.queueDepths();
      return ok({
        ...item(b, depths),
        native_gates: nativeGates(b),
        connectivity: { all_to_all: b.coupling_map === null, coupling_map: b.coupling_map },
        average_fidelity: averageFidelity(b),
        max_shots: b.max_shots,
        max_circuits: b.max_circuits,
      });
    },
  );
}
