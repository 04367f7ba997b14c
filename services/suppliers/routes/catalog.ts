/**
 * Interface 4's catalog: GET /api/v1/backends/all (every supplier's targets in one normalized
 * form, with measured queue figures), GET /api/v1/pricing (cost per shot and minimum charge
 * of every backend, from the same cost models that price jobs) and GET /api/v1/tiers.
 */
import { parseQasm } from '../../../engines/quantum/index.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { deviceQueueStats } from '../../../platform/quantum-jobs/index.ts';
import { who } from '../auth.ts';
import { describeCircuit } from '../circuit.ts';
import type { Deps } from '../jobs.ts';
import { allSupplierPlans, supplierPlan } from '../../../platform/quantum-jobs/plans.ts';
import { costModelOf, estimate, minimumCharge, RATES, SETUP_FEE_USD } from '../pricing.ts';
import { allTargets } from '../targets.ts';
import { security } from './responses.ts';

const tags = ['Catalog'];
/** The reference circuit of the per-shot prices: a Bell pair, measured. */
const BELL = describeCircuit(parseQasm('OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n'));

export function registerCatalog(app: ServiceApp, deps: Deps): void {
  app.get('/api/v1/backends/all', { preValidation: deps.auth, schema: { security, tags, summary: 'Every backend of every supplier, normalized' } }, async () => {
    const { targets, unavailable } = await allTargets(deps);
    const emulated = [...new Set(targets.filter((t) => t.mode === 'emulated').map((t) => t.backend))];
    const stats = await deviceQueueStats(deps.ctx, emulated);
    const backends = targets.map((t) => {
      const q = t.mode === 'emulated' ? stats.get(t.backend) : undefined;
      return {
        id: t.id,
        provider: t.supplier,
        provider_name: t.provider,
        name: t.name,
        type: t.type,
        num_qubits: t.numQubits,
        status: t.status,
        mode: t.mode,
        basis_gates: t.basisGates,
        max_shots: t.maxShots,
        cost_model: costModelOf(t),
        queue_length: q?.queue_length ?? null,
        average_wait_minutes: q?.average_wait_minutes ?? null,
        emulated_by: t.mode === 'emulated' ? t.backend : null,
      };
    });
    return { backends, total: backends.length, unavailable_providers: unavailable };
  });

  app.get('/api/v1/pricing', { preValidation: deps.auth, schema: { security, tags, summary: 'Cost per shot and minimum charge of every backend' } }, async () => {
    const { targets } = await allTargets(deps);
    return {
      currency: 'USD',
      reference_circuit: 'Bell pair: 1 one-qubit gate, 1 two-qubit gate, 2 measurements (per-shot prices of gate-priced backends depend on the circuit)',
      prices: targets.map((t) => {
        const per1000 = estimate(t, BELL, 1000);
        const model = costModelOf(t);
        const rates =
          model === 'per_aqt' ? { rate_per_aqt: RATES.supplier_a_quantum.ratePerAqt, aqt_per_shot: RATES.supplier_a_quantum.aqtPerShot, task_fee: RATES.supplier_a_quantum.taskFeeUsd }
          : model === 'per_second' ? { usd_per_quantum_second: RATES.supplier_b_quantum.usdPerQuantumSecond, setup_seconds: RATES.supplier_b_quantum.setupSeconds, setup_fee_usd: SETUP_FEE_USD }
          : model === 'per_shot' ? { per_shot: RATES.supplier_c.perShotUsd, task_fee: RATES.supplier_c.taskFeeUsd }
          : {};
        // Per shot: the marginal cost of the 1000-shot reference run above its fixed part (task fee or set-up fee).
        const perShot = Math.max(0, per1000.usd - minimumCharge(t)) / 1000;
        return {
          provider: t.supplier,
          backend: t.id,
          type: t.type,
          cost_model: model,
          cost_per_shot_usd: Math.round(perShot * 1e9) / 1e9,
          minimum_charge_usd: minimumCharge(t),
          reference_cost_1000_shots_usd: per1000.usd,
          rates,
        };
      }),
    };
  });

  app.get('/api/v1/tiers', { preValidation: deps.auth, schema: { security, tags, summary: 'Execution tiers with pricing, and the plans' } }, async (req) => {
    const plan = supplierPlan(who(req).plan);
    return {
      tiers: [
        { id: 'simulation', name: 'HPC simulation', providers: ['hpc_gpu', 'supplier_b_quantum', 'supplier_c'], hardware: 'simulator', cost_model: 'free', pricing: { per_shot: 0, minimum_charge_usd: 0 }, description: 'Ideal statevector simulation; costs no credits' },
        { id: 'trapped_ion', name: 'Trapped-ion QPU', providers: ['supplier_a_quantum'], hardware: 'qpu', cost_model: 'per_aqt', pricing: { rate_per_aqt: RATES.supplier_a_quantum.ratePerAqt, aqt_per_shot: RATES.supplier_a_quantum.aqtPerShot, task_fee: RATES.supplier_a_quantum.taskFeeUsd, minimum_charge_usd: RATES.supplier_a_quantum.taskFeeUsd }, description: 'the catalog list price: task fee + shots x per-shot price (one AQT per shot)' },
        { id: 'superconducting_runtime', name: 'Superconducting QPU (runtime)', providers: ['supplier_b_quantum'], hardware: 'qpu', cost_model: 'per_second', pricing: { usd_per_quantum_second: RATES.supplier_b_quantum.usdPerQuantumSecond, setup_seconds: RATES.supplier_b_quantum.setupSeconds, setup_fee_usd: SETUP_FEE_USD, minimum_charge_usd: SETUP_FEE_USD }, description: 'the catalog list price (shots x (scheduled circuit duration + 250 us repetition delay) of QPU time at $96 per minute) plus a set-up fee of 1 quantum second per job' },
        { id: 'quantum_tasks', name: 'Superconducting QPU (tasks)', providers: ['supplier_c'], hardware: 'qpu', cost_model: 'per_shot', pricing: { per_shot: RATES.supplier_c.perShotUsd, task_fee: RATES.supplier_c.taskFeeUsd, minimum_charge_usd: RATES.supplier_c.taskFeeUsd }, description: 'the catalog list price: shots x per-shot price + task fee' },
      ],
      plans: allSupplierPlans().map((p) => ({ name: p.name, requests_per_minute: p.requestsPerMinute, jobs_per_day: p.jobsPerDay, max_qubits: p.maxQubits })),
      current_plan: plan.name,
    };
  });
}
