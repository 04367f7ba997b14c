/**
 * The metric families of each service, declared in one place so that their names, help and
 * labels stay consistent and reviewable. Every label takes values from a small closed set
 * (a result, a model or backend name, a state); none carries an id, a key or a path parameter.
 *
 * Counters are counted where the event happens; figures kept in the database (open holds, jobs
 * by state, queue depth) are read at scrape time (`storeGauges`), so that they are right for
 * the whole cluster and after a restart.
 */
import type { Sql } from '../storage/database.ts';
import { counter, gauge, histogram, processSampledGauge, sampledGauge } from './metrics.ts';

/** License validations by variant (a, b, c, q) and result (valid, expired, revoked, not_found, ...). */
export function countLicenseValidation(service: string, variant: string, result: string): void {
  counter(service, 'lattice_license_validations_total', 'License validations by variant and result', ['variant', 'result']).inc({ variant, result });
}

/** The result name of a validation answer given by its message: `notFound` becomes `not_found`. */
export function resultOf(messages: Record<string, string>, message: string): string {
  let names = resultNames.get(messages);
  if (!names) {
    names = new Map();
    // The first name of a message, as a search of the table would find it.
    for (const [name, m] of Object.entries(messages)) if (!names.has(m)) names.set(m, name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
    resultNames.set(messages, names);
  }
  return names.get(message) ?? 'other';
}

/** Each message table's result names by message, made on first use (a validation asks on every request). */
const resultNames = new WeakMap<Record<string, string>, Map<string, string>>();

/** One admitted model call through the gateway by its outcome (`model` is a catalog id). */
export function countGatewayCall(model: string, outcome: 'ok' | 'upstream_error' | 'client_gone' | 'key_revoked'): void {
  const service = 'llm-gateway';
  counter(service, 'lattice_gateway_calls_total', 'Model calls through the gateway by model and outcome', ['model', 'outcome']).inc({ model, outcome });
  if (outcome === 'upstream_error') counter(service, 'lattice_gateway_upstream_errors_total', 'Calls the model backend failed, by model', ['model']).inc({ model });
}

/** What a gateway call was charged: tokens and money, per model. */
export function countGatewayUsage(model: string, promptTokens: number, completionTokens: number, costMicros: number): void {
  const service = 'llm-gateway';
  const tokens = counter(service, 'lattice_gateway_tokens_total', 'Tokens charged by model and kind (prompt, completion)', ['model', 'kind']);
  tokens.inc({ model, kind: 'prompt' }, promptTokens);
  tokens.inc({ model, kind: 'completion' }, completionTokens);
  counter(service, 'lattice_gateway_spend_usd_total', 'Money charged for model calls, in US dollars, by model', ['model']).inc({ model }, costMicros / 1_000_000);
}

/** One webhook delivery attempt: its outcome and whether it was a retry. */
export function countWebhookDelivery(service: string, success: boolean, attempt: number): void {
  counter(service, 'lattice_webhook_deliveries_total', 'Webhook delivery attempts by outcome and attempt kind (first, retry)', ['outcome', 'attempt']).inc({
    outcome: success ? 'delivered' : 'failed',
    attempt: attempt <= 1 ? 'first' : 'retry',
  });
}

/** A training job that reached an end state. */
export function countTrainingJob(service: string, outcome: string): void {
  counter(service, 'lattice_training_jobs_total', 'Training jobs finished, by outcome', ['outcome']).inc({ outcome });
}

/** The positioning receiver's latest state, set at each epoch. */
export function setPositioning(state: { fix: boolean; satellitesUsed: number; spoofing: boolean; holdover: boolean; at: Date }): void {
  const service = 'nav';
  gauge(service, 'lattice_nav_fix', 'Whether the latest epoch has a position fix (1) or not (0)').set(state.fix ? 1 : 0);
  gauge(service, 'lattice_nav_satellites_used', 'Satellites used in the latest solution').set(state.satellitesUsed);
  gauge(service, 'lattice_nav_spoofing_detected', 'Whether spoofing is detected now (1) or not (0)').set(state.spoofing ? 1 : 0);
  gauge(service, 'lattice_nav_holdover', 'Whether the clock is in holdover now (1) or not (0)').set(state.holdover ? 1 : 0);
  if (state.fix) lastFixAt = state.at.getTime();
  gauge(service, 'lattice_nav_fix_age_seconds', 'Seconds since the latest position fix (-1 before the first)').set(lastFixAt === null ? -1 : Math.max(0, (Date.now() - lastFixAt) / 1000));
}
let lastFixAt: number | null = null;

/** Seconds a quantum job waited in its queue before a worker took it, per backend. */
export function observeQuantumWait(service: string, backend: string, seconds: number): void {
  histogram(service, 'lattice_quantum_queue_wait_seconds', 'Time quantum jobs waited before running, by backend', ['backend'], [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800]).observe({ backend }, seconds);
}

/** Backends are a closed catalog, but a caller may name anything: unknown names are folded. */
function backendLabel(name: unknown): string {
  const text = String(name ?? '');
  return /^[a-z0-9_.-]{1,48}$/i.test(text) ? text : 'other';
}

/**
 * The figures of `service` kept in the store, read at each scrape: open credit holds and their
 * amount, quantum jobs by backend and state with the queue length, and the job queue's depth.
 */
export function storeGauges(service: string, db: Sql, which: { holds: boolean; quantum: boolean }): void {
  if (which.holds) holdGauges(service, db);
  if (which.quantum) quantumGauges(service, db);
}

function holdGauges(service: string, db: Sql): void {
  sampledGauge(service, 'lattice_credit_holds_open', 'Credit holds open now', [], async (set) => {
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM billing_holds WHERE status = 'open' AND service = $1`, [service]);
    set({}, Number(row?.n ?? 0));
  });
  sampledGauge(service, 'lattice_credit_holds_open_usd', 'Money held by open credit holds, in US dollars', [], async (set) => {
    const [row] = await db.query<{ micros: number }>(
      `SELECT COALESCE(sum(amount_micros), 0)::float8 AS micros FROM billing_holds WHERE status = 'open' AND service = $1`,
      [service],
    );
    set({}, Number(row?.micros ?? 0) / 1_000_000);
  });
}

function quantumGauges(service: string, db: Sql): void {
  sampledGauge(service, 'lattice_quantum_jobs', 'Quantum jobs by backend and state', ['backend', 'state'], async (set, reset) => {
    const rows = await db.query<{ backend: string; status: string; n: number }>(
      `SELECT backend, status, count(*)::int AS n FROM quantum_jobs WHERE service = $1 GROUP BY backend, status`,
      [service],
    );
    reset();
    for (const r of rows) set({ backend: backendLabel(r.backend), state: r.status }, r.n);
  });
  sampledGauge(service, 'lattice_quantum_queue_length', 'Quantum jobs waiting for a worker, by backend', ['backend'], async (set, reset) => {
    const rows = await db.query<{ backend: string; n: number }>(
      `SELECT backend, count(*)::int AS n FROM quantum_jobs WHERE service = $1 AND status = 'queued' GROUP BY backend`,
      [service],
    );
    reset();
    for (const r of rows) set({ backend: backendLabel(r.backend) }, r.n);
  });
}

/** Training jobs of the language-model service by state (queued, running, completed, failed). */
export function trainingGauge(db: Sql): void {
  sampledGauge('llm', 'lattice_training_jobs', 'Training jobs by state', ['state'], async (set, reset) => {
    const rows = await db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM llm_training_jobs GROUP BY status');
    reset();
    for (const r of rows) set({ state: r.status }, r.n);
  });
}

/** The durable job queue is shared by the services of a process (and a cluster): one family for the process. */
export function jobQueueGauge(db: Sql): void {
  processSampledGauge('lattice_job_queue_depth', 'Jobs of the durable job queue by queue and state (created, retry, active)', ['queue', 'state'], async (set, reset) => {
    const [exists] = await db.query<{ t: string | null }>(`SELECT to_regclass('pgboss.job')::text AS t`);
    reset();
    if (!exists?.t) return;
    const rows = await db.query<{ name: string; state: string; n: number }>(
      `SELECT name, state::text AS state, count(*)::int AS n FROM pgboss.job WHERE state IN ('created', 'retry', 'active') GROUP BY name, state`,
    );
    for (const r of rows) set({ queue: backendLabel(r.name), state: r.state }, r.n);
  });
}
