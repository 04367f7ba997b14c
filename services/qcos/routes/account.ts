/**
 * GET /v2/account/usage and GET /v2/account/quotas. Usage is measured from the job rows of the
 * billing period (the calendar month, UTC): quantum minutes are emulated device time,
 * simulation minutes simulator time, optimization credits one per optimize call; api_calls
 * counts the key's account requests of the month.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { readCounter } from '../../../platform/identity/usage.ts';
import { jobUsage } from '../../../platform/quantum-jobs/index.ts';
import { who } from '../auth.ts';
import { findBackend, pricingOf } from '../catalog.ts';
import { QcosError } from '../errors.ts';
import { billingPeriod, qcosPlan } from '../plans.ts';
import { TAG_ACCOUNT, security } from '../schemas.ts';
import type { QcosDeps } from './context.ts';

const NullableInt = Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited' });
const NullableNum = Type.Union([Type.Number(), Type.Null()], { description: 'null: unlimited' });
const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** List price of the account's device runs this period (per minute, or per shot plus task fee). */
async function estimatedBill(deps: QcosDeps, accountId: string, from: Date, to: Date): Promise<number> {
  const rows = await deps.ctx.db.query<{ backend: string; minutes: string | number; shots: string | number; tasks: string | number }>(
    `SELECT backend, sum(charged_minutes) AS minutes, sum((input->'task'->>'shots')::bigint) FILTER (WHERE status = 'completed') AS shots,
            count(*) FILTER (WHERE status = 'completed') AS tasks
       FROM quantum_jobs WHERE service = 'qcos' AND account_id = $1 AND kind = 'run' AND minutes_kind = 'quantum'
        AND created_at >= $2 AND created_at < $3 GROUP BY backend`,
    [accountId, from, to],
  );
  let usd = 0;
  for (const r of rows) {
    const b = findBackend(r.backend);
    if (!b) continue;
    const p = pricingOf(b);
    usd += 'rate_per_minute' in p ? p.rate_per_minute * Number(r.minutes) : p.rate_per_shot * Number(r.shots ?? 0) + p.task_fee * Number(r.tasks);
  }
  return Math.round(usd * 100) / 100;
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
            estimated_bill: Type.Number({ description: 'US dollars: the devices list price of the period runs' }),
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
      const calls = await readCounter(deps.ctx.db, { accountId: id.accountId, service: 'qcos', counter: 'requests', period: now.toISOString().slice(0, 7) });
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
