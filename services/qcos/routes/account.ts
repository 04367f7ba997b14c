/**
 * GET /v2/account/usage and GET /v2/account/quotas. Usage is measured from the job rows of the
 * billing period (the calendar month, UTC): quantum minutes are emulated device time,
 * simulation minutes simulator time, optimization credits one per optimize call; api_calls
 * counts the key's account requests of the month.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { usageBatchFor } from '../../../platform/identity/usage-batch.ts';
import { readCounter } from '../../../platform/identity/usage.ts';
import { jobUsage } from '../../../platform/quantum-jobs/index.ts';
import { requestsCounter, who } from '../auth.ts';
import { listPrice } from '../../../engines/quantum/pricing.ts';
import { findBackend } from '../catalog.ts';
import { QcosError } from '../errors.ts';
import { billingPeriod, qcosPlan } from '../plans.ts';
import { TAG_ACCOUNT, security } from '../schemas.ts';
import type { QcosDeps } from './context.ts';

const NullableInt = Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited' });
const NullableNum = Type.Union([Type.Number(), Type.Null()], { description: 'null: unlimited' });
const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * The list price of the account's completed device runs this period: each run's price fixed at
 * submission (`list_price_micros`, engines/quantum/pricing.ts, the one price list); a run
 * submitted before prices were recorded is priced now from its stored circuit by the same formula.
 */
async function estimatedBill(deps: QcosDeps, accountId: string, from: Date, to: Date): Promise<number> {
  const rows = await deps.ctx.db.query<{ backend: string; micros: string | number | null; qasm: string | null; shots: string | number | null }>(
    `SELECT backend, input->>'list_price_micros' AS micros,
            CASE WHEN input->>'list_price_micros' IS NULL THEN input->'task'->>'qasm' END AS qasm, input->'task'->>'shots' AS shots
       FROM quantum_jobs WHERE service = 'qcos' AND account_id = $1 AND kind = 'run' AND minutes_kind = 'quantum' AND status = 'completed'
        AND created_at >= $2 AND created_at < $3`,
    [accountId, from, to],
  );
  let micros = 0;
  for (const r of rows) {
    if (r.micros !== null) micros += Number(r.micros);
    else {
      const b = findBackend(r.backend);
      if (b && r.qasm) micros += listPrice(b, r.qasm, Number(r.shots ?? 0)).micros;
    }
  }
  return Math.round(micros / 1e4) / 100;
}

export function registerAccount(app: ServiceApp, deps: QcosDeps): void {
  app.get(
    '/v2/account/usage',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG_ACCOUNT],
        summary: 'Usage of the billing period, measured from the jobs',
        security,
        response: {
          200: Type.Object({
            billing_period: Type.Object({ start: Type.String({ format: 'date-time' }), end: Type.String({ format: 'date-time' }) }),
            plan: Type.String(),
            quantum_minutes: Type.Object({ used: Type.Number(), included: NullableNum, overage: Type.Number(), held: Type.Number() }),
            simulation_minutes: Type.Object({ used: Type.Number(), included: NullableNum, held: Type.Number() }),
            optimization_credits: Type.Object({ used: Type.Integer(), included: NullableInt }),
            api_calls: Type.Object({ used: Type.Integer(), limit: NullableInt }),
            estimated_bill: Type.Number({ description: 'US dollars: the list price of the period\'s completed device runs (the sum of their estimated_cost_usd), to the cent' }),
          }),
          '4xx': QcosError,
        },
      },
    },
    async (req) => {
      const id = who(req);
      const plan = qcosPlan(id.plan);
      const now = deps.ctx.now();
      const period = billingPeriod(now);
      const u = await jobUsage(deps.ctx, { service: 'qcos', accountId: id.accountId, from: period.start, to: period.end });
      const days = Math.round((period.end.getTime() - period.start.getTime()) / 86_400_000);
      // This process's counts still in memory first (another process's are at most a second behind).
      await usageBatchFor(deps.ctx.db).flush();
      const calls = await readCounter(deps.ctx.db, requestsCounter(id.accountId, now));
      return {
        billing_period: { start: period.start.toISOString(), end: period.end.toISOString() },
        plan: plan.name,
        quantum_minutes: {
          used: r6(u.quantum_minutes),
          included: plan.quantumMinutes,
          overage: plan.quantumMinutes === null ? 0 : r6(Math.max(0, u.quantum_minutes - plan.quantumMinutes)),
          held: r6(u.quantum_minutes_held),
        },
        simulation_minutes: { used: r6(u.simulation_minutes), included: plan.simulationMinutes, held: r6(u.simulation_minutes_held) },
        optimization_credits: { used: u.credits, included: plan.optimizationCredits },
        api_calls: { used: calls, limit: plan.requestsPerDay === null ? null : plan.requestsPerDay * days },
        estimated_bill: await estimatedBill(deps, id.accountId, period.start, period.end),
      };
    },
  );

  app.get(
    '/v2/account/quotas',
    {
      preValidation: deps.auth,
      schema: {
        tags: [TAG_ACCOUNT],
        summary: 'The plan quotas and features',
        security,
        response: {
          200: Type.Object({
            plan: Type.String(),
            quotas: Type.Object({
              quantum_minutes_monthly: NullableNum,
              simulation_minutes_monthly: NullableNum,
              optimization_credits_monthly: NullableInt,
              max_qubits: Type.Integer(),
              max_circuit_depth: NullableInt,
              max_shots: Type.Integer(),
              concurrent_jobs: Type.Integer(),
              requests_per_minute: NullableInt,
              requests_per_day: NullableInt,
            }),
            features: Type.Object({
              multi_backend: Type.Boolean(),
              chat_integration: Type.String(),
              custom_noise_models: Type.Boolean(),
              priority_queue: Type.Boolean(),
            }),
          }),
          '4xx': QcosError,
        },
      },
    },
    async (req) => {
      const plan = qcosPlan(who(req).plan);
      return {
        plan: plan.name,
        quotas: {
          quantum_minutes_monthly: plan.quantumMinutes,
          simulation_minutes_monthly: plan.simulationMinutes,
          optimization_credits_monthly: plan.optimizationCredits,
          max_qubits: plan.maxQubits,
          max_circuit_depth: plan.maxDepth,
          max_shots: plan.maxShots,
          concurrent_jobs: plan.concurrentJobs,
          requests_per_minute: plan.requestsPerMinute,
          requests_per_day: plan.requestsPerDay,
        },
        features: plan.features,
      };
    },
  );
}
