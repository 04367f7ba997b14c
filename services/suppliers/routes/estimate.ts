/** POST /api/v1/estimate: the cost of a circuit on every (or the named) target, cheapest first. */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { who } from '../auth.ts';
import { analyzeCircuit } from '../circuit.ts';
import { supplierError } from '../errors.ts';
import type { Deps } from '../jobs.ts';
import { supplierPlan } from '../../../platform/quantum-jobs/plans.ts';
import { estimate } from '../pricing.ts';
import { pickTargets } from '../targets.ts';
import { Qasm, Shots } from './schemas.ts';
import { TargetRefs } from './validate.ts';
import { security } from './responses.ts';

export function registerEstimate(app: ServiceApp, deps: Deps): void {
  app.post(
    '/api/v1/estimate',
    {
      preValidation: deps.auth,
      schema: { security, tags: ['Catalog'], summary: 'Cost estimate across providers', body: Type.Object({ qasm: Qasm, shots: Shots, targets: TargetRefs }) },
    },
    async (req) => {
      const plan = supplierPlan(who(req).plan);
      const info = analyzeCircuit(req.body.qasm);
      const targets = await pickTargets(deps, req.body.targets);
      const shots = req.body.shots;
      // Above every target's own limit nothing could run: the suppliers' error, naming the largest limit.
      const most = Math.max(...targets.map((t) => t.maxShots));
      if (targets.length && shots > most) {
        throw supplierError('SHOTS_EXCEEDED', `${shots} shots requested; no target allows more than ${most} shots per job`, { supplier: null, shots, max_shots: most });
      }
      const estimates = targets
        .map((t) => {
          const e = estimate(t, info, shots);
          const reasons: string[] = [];
          if (info.numQubits > t.numQubits) reasons.push(`needs ${info.numQubits} qubits, has ${t.numQubits}`);
          if (info.numQubits > plan.maxQubits) reasons.push(`plan allows ${plan.maxQubits} qubits`);
          if (shots > t.maxShots) reasons.push(`allows at most ${t.maxShots} shots`);
          return {
            provider: t.supplier, backend: t.id, type: t.type, cost_model: e.costModel, estimated_cost_usd: e.usd, currency: 'USD',
            breakdown: e.breakdown, runnable: reasons.length === 0, ...(reasons.length ? { not_runnable_because: reasons } : {}),
          };
        })
        .sort((a, b) => a.estimated_cost_usd - b.estimated_cost_usd);
      const runnable = estimates.filter((e) => e.runnable);
      return {
        shots,
        circuit: { num_qubits: info.numQubits, one_qubit_gates: info.oneQubitGates, two_qubit_gates: info.twoQubitGates, depth: info.depth },
        estimates,
        cheapest: runnable[0] ? { provider: runnable[0].provider, backend: runnable[0].backend, estimated_cost_usd: runnable[0].estimated_cost_usd } : null,
      };
    },
  );
}
