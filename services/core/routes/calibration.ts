/** GET /api/v2/backends/{backend_id}/calibration — fidelities from the backend's calibration in the engine's catalog. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { ok } from '../../../platform/http/envelope.ts';
import { fidelitiesOf, getBackend } from '../catalog.ts';
import { coreError, responses } from '../errors.ts';
import { keySecurity, type CoreDeps } from './context.ts';

const Calibration = Type.Object({
  backend_id: Type.String(),
  timestamp: Type.String({ description: "when the device was calibrated; for an ideal simulator, this service's start" }),
  single_qubit_fidelity: Type.Number({ description: '1 - average one-qubit gate error' }),
  two_qubit_fidelity: Type.Number({ description: '1 - average two-qubit gate error' }),
  readout_fidelity: Type.Number({ description: '1 - readout error' }),
  t1_us: Type.Union([Type.Number(), Type.Null()], { description: 'amplitude damping time; null for an ideal simulator' }),
  t2_us: Type.Union([Type.Number(), Type.Null()], { description: 'dephasing time; null for an ideal simulator' }),
});

export function registerCalibration(app: ServiceApp, deps: CoreDeps): void {
  app.get(
    '/api/v2/backends/:backend_id/calibration',
    {
      preValidation: deps.auth,
      schema: {
        tags: ['Backends'],
        summary: "A backend's calibration",
        security: keySecurity,
        params: Type.Object({ backend_id: Type.String({ maxLength: 128 }) }),
        response: responses(Calibration),
      },
    },
    async (req) => {
      const b = getBackend(req.params.backend_id);
      if (!b) throw coreError('NOT_FOUND', `Backend '${req.params.backend_id}' not found`);
      return ok({
        backend_id: b.id,
        timestamp: b.calibration ? new Date(b.calibration.last_updated).toISOString() : deps.startedAt.toISOString(),
        ...fidelitiesOf(b),
        t1_us: b.calibration?.t1_us ?? null,
        t2_us: b.calibration?.t2_us ?? null,
      });
    },
  );
}
