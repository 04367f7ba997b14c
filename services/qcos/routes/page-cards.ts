/**
 * The quantum jobs page's two cards beside the list: usage against each quantum service's plan
 * quota for the billing period, and the credit balance with its open holds. Rendered with the
 * page and again whenever a job of the account changes (page-events.ts `cards`).
 */
import { getBalance, microsToUsd } from '../../../platform/billing/index.ts';
import { html, type SafeHtml } from '../../../platform/http/pages.ts';
import { monthPeriod, readCounter } from '../../../platform/identity/usage.ts';
import { jobUsage } from '../../../platform/quantum-jobs/index.ts';
// The plan tables of the other quantum services: data modules of the contract, no code of theirs runs here.
import { corePlan, supplierPlan } from '../../../platform/quantum-jobs/plans.ts';
import { billingPeriod, qcosPlan } from '../plans.ts';
import type { QcosDeps } from './context.ts';
import { SERVICES } from './page-format.ts';

interface Meter {
  label: string;
  used: number;
  held: number;
  /** null: unlimited, or no quota. */
  included: number | null;
  unit: string;
  /** Figures with a fractional part (minutes). */
  decimals: number;
}

interface UsageLine {
  service: string;
  jobs: number;
  plan: string | null;
  note: string | null;
  meters: Meter[];
}

/**
 * Each quantum service's usage against its plan's quota, read where the service keeps it: qcos's
 * minutes and optimization credits from the shared job table (as GET /v2/account/usage counts
 * them), core's evaluations from its monthly counter; the suppliers count jobs per API key per
 * UTC day. Platform and runtime bill from the balance and have no quota: their minutes are
 * shown as used.
 */
export async function usageLines(deps: QcosDeps, accountId: string): Promise<{ lines: UsageLine[]; period: { start: Date; end: Date } }> {
  const now = deps.ctx.now();
  const period = billingPeriod(now);
  const services = new Set(['qcos']);
  for (const r of await deps.ctx.db.query<{ service: string }>('SELECT DISTINCT service FROM quantum_jobs WHERE account_id = $1', [accountId])) services.add(r.service);
  const plans = new Map<string, string>();
  for (const r of await deps.ctx.db.query<{ service: string; plan: string }>('SELECT service, plan FROM account_plans WHERE account_id = $1', [accountId])) plans.set(r.service, r.plan);
  for (const s of ['core', 'suppliers']) if (plans.has(s)) services.add(s);
  const evaluations = await readCounter(deps.ctx.db, { accountId, service: 'core', counter: 'evaluations', period: monthPeriod(now) });
  if (evaluations > 0) services.add('core');
  const supplierKeys = await deps.ctx.db.query<{ value: string }>(
    "SELECT value FROM usage_counters WHERE account_id = $1 AND service = 'suppliers' AND counter LIKE 'jobs_day:%' AND period = $2",
    [accountId, now.toISOString().slice(0, 10)],
  );
  if (supplierKeys.length) services.add('suppliers');
  const lines: UsageLine[] = [];
  // qcos first (this page's own service), then the others by name.
  for (const service of [...services].sort((a, b) => Number(b === 'qcos') - Number(a === 'qcos') || a.localeCompare(b))) {
    const u = await jobUsage(deps.ctx, { service, accountId, from: period.start, to: period.end });
    const minutes = (q: number | null, sim: number | null): Meter[] => [
      { label: 'Quantum', used: u.quantum_minutes, held: u.quantum_minutes_held, included: q, unit: 'min', decimals: 3 },
      { label: 'Simulation', used: u.simulation_minutes, held: u.simulation_minutes_held, included: sim, unit: 'min', decimals: 3 },
    ];
    if (service === 'qcos') {
      const plan = qcosPlan(plans.get('qcos'));
      lines.push({
        service, jobs: u.jobs, plan: plan.name, note: null,
        meters: [...minutes(plan.quantumMinutes, plan.simulationMinutes), { label: 'Optimization credits', used: u.credits, held: 0, included: plan.optimizationCredits, unit: '', decimals: 0 }],
      });
    } else if (service === 'core') {
      const plan = corePlan(plans.get('core'));
      lines.push({ service, jobs: u.jobs, plan: plan.name, note: null, meters: [{ label: 'Evaluations', used: evaluations, held: 0, included: plan.evaluationsPerMonth, unit: '', decimals: 0 }, ...minutes(null, null)] });
    } else if (service === 'suppliers') {
      const plan = supplierPlan(plans.get('suppliers'));
      const perKey = supplierKeys.map((k) => Number(k.value));
      lines.push({
        service, jobs: u.jobs, plan: plan.name,
        note: perKey.length > 1 ? `jobs today: the busiest of ${perKey.length} API keys` : 'jobs today are counted per API key',
        meters: [{ label: 'Jobs today', used: perKey.length ? Math.max(...perKey) : 0, held: 0, included: plan.jobsPerDay, unit: '', decimals: 0 }, ...minutes(null, null)],
      });
    } else {
      lines.push({ service, jobs: u.jobs, plan: plans.get(service) ?? null, note: 'no quota: billed from the balance', meters: minutes(null, null) });
    }
  }
  return { lines, period };
}

function meter(m: Meter): SafeHtml {
  const pct = m.included ? Math.min(100, Math.round((100 * m.used) / m.included)) : null;
  const n = (v: number) => (!m.decimals ? String(v) : v > 0 && v < 10 ** -m.decimals / 2 ? `< ${(10 ** -m.decimals).toFixed(m.decimals)}` : v.toFixed(m.decimals));
  const unit = m.unit ? ` ${m.unit}` : '';
  return html`<div class="meter" data-meter="${m.label}" data-used="${Math.round(m.used * 1e6) / 1e6}" data-held="${Math.round(m.held * 1e6) / 1e6}" data-included="${m.included ?? ''}"><div class="meter-label">${m.label}: <strong>${n(m.used)}</strong>${m.included !== null ? ` of ${m.included}${unit}` : unit}${m.held > 0 ? html` <span class="muted">(+${n(m.held)} held)</span>` : ''}</div>
${pct !== null ? html`<progress max="100" value="${pct}">${pct} %</progress>` : ''}</div>`;
}

/** Every quota, and what was used without one (minutes of a service that has no quota on them). */
function metersShown(l: UsageLine): SafeHtml {
  const shown = l.meters.filter((m) => m.included !== null || m.used > 0 || m.held > 0 || l.service === 'qcos');
  return shown.length ? html`${shown.map(meter)}` : html`<p class="muted meter-label">No minutes used this period.</p>`;
}

export function usageCard(u: Awaited<ReturnType<typeof usageLines>>): SafeHtml {
  return html`<section class="card" id="usage"><h2>Usage against quota</h2><p class="muted">Billing period ${u.period.start.toISOString().slice(0, 10)} to ${u.period.end.toISOString().slice(0, 10)} (UTC)</p>
${u.lines.map((l) => html`<div class="usage-line" data-service="${l.service}"><h3>${SERVICES[l.service] ?? l.service} <span class="muted">${l.plan ? `${l.plan} plan · ` : ''}${l.jobs} jobs${l.note ? ` · ${l.note}` : ''}</span></h3>
${metersShown(l)}</div>`)}</section>`;
}

export async function balanceCard(deps: QcosDeps, accountId: string): Promise<SafeHtml> {
  const b = await getBalance(deps.ctx.db, accountId);
  const holds = await deps.ctx.db.query<{ id: string; service: string; reference: string; amount_micros: string; created_at: Date }>(
    "SELECT id, service, reference, amount_micros, created_at FROM billing_holds WHERE account_id = $1 AND status = 'open' ORDER BY created_at DESC LIMIT 20",
    [accountId],
  );
  return html`<section class="card" id="balance"><h2>Credit balance</h2><p class="big" id="available">$${microsToUsd(b.availableMicros).toFixed(2)}</p>
<p class="muted">available · <span id="held">$${microsToUsd(b.heldMicros).toFixed(2)}</span> held by ${holds.length} open ${holds.length === 1 ? 'hold' : 'holds'}</p>
${holds.length ? html`<ul class="holds">${holds.map((h) => html`<li>${SERVICES[h.service] ?? h.service} · <code>${h.reference}</code> · $${(Number(h.amount_micros) / 1e6).toFixed(2)}</li>`)}</ul>` : ''}</section>`;
}
