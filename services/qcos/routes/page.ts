/**
 * GET / — the quantum jobs page, and GET /jobs/{id} — one job's page; rendered on the server for
 * console users (`lattice console-users create`). The list covers the account's jobs of every
 * quantum service: interfaces 1 (qcos), 3 (core), 5 (platform) and 6 (runtime) from the shared
 * job table, and the suppliers' jobs of interfaces 2 and 4 (their emulated runs are rows of the
 * shared table; their remote ones rows of `supplier_jobs`, read when that table exists). Beside
 * it: usage against each service's plan quota (qcos's minutes and optimization credits and
 * core's evaluations for the billing month, the suppliers' jobs per key for the day), and the
 * credit balance with its open holds (page-cards.ts). A job's page shows the circuit before and after optimization as diagrams
 * (engines/quantum/draw) with gate and depth counts, the counts as a histogram (the 32 most
 * frequent outcomes, the rest summed), the quality metrics, the evidence bundle when the job has
 * one, and cancel while the job can still be cancelled (a supplier job's through the suppliers
 * service: page-supplier-cancel.ts).
 *
 * Live: web/qcos.js follows server-sent events (page-events.ts): the list's rows, and the usage
 * and balance cards, as the server sees the account's jobs change, and on a job's page its
 * status (the page renders anew when it changes).
 * GET /console/jobs and /console/jobs/{id}/status answer the same once, as JSON.
 */
import { fileURLToPath } from 'node:url';
import { parseQasm } from '../../../engines/quantum/index.ts';
import { circuitSvg } from '../../../engines/quantum/draw/index.ts';
import { counts as circuitCounts } from '../../../engines/quantum/optimizer/metrics.ts';
import { bundleForSubject, EvidenceKeys, exportBundle, isExportFormat, sha3HashJson, verifyBundle, type HashInputs, type StoredBundle, type VerificationResult } from '../../../platform/evidence/index.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { consoleSignInView, html, raw, type SafeHtml, sendPage, serveAssets } from '../../../platform/http/pages.ts';
import { ConsoleSessions, registerConsoleSignIn, type ConsoleSession } from '../../../platform/http/session.ts';
import { cancelJob, getJobWithResult, type QuantumJob, type JobInput, type TaskResult } from '../../../platform/quantum-jobs/index.ts';
import { qcosError } from '../errors.ts';
import type { QcosDeps } from './context.ts';
import { balanceCard, usageCard, usageLines } from './page-cards.ts';
import { registerJobEvents, type AccountJobsState } from './page-events.ts';
import { ACTIVE, dur, SERVICES, STATUSES, usd, when } from './page-format.ts';
import { measuredDistance } from './page-quality.ts';
import { cancelMark, requestSupplierCancel, supplierCancel, type SupplierCancel } from './page-supplier-cancel.ts';

export { SERVICES } from './page-format.ts';

/** Outcomes drawn as their own bar; the rest are summed into one. */
export const HISTOGRAM_BARS = 32;

export interface JobRow {
  id: string;
  service: string;
  origin: 'jobs' | 'supplier';
  kind: string;
  backend: string;
  status: string;
  shots: number | null;
  createdAt: Date;
  durationMs: number | null;
  costUsd: number | null;
}


async function hasTable(deps: QcosDeps, name: string): Promise<boolean> {
  const [row] = await deps.ctx.db.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [name]);
  return Boolean(row?.t);
}

/** The account's jobs of every quantum service, newest first, with the filters applied. */
export async function listAccountJobs(deps: QcosDeps, accountId: string, f: { status?: string; service?: string }, limit = 200): Promise<JobRow[]> {
  const rows: JobRow[] = [];
  if (f.service !== 'suppliers-remote') {
    const q = await deps.ctx.db.query<{
      id: string; service: string; kind: string; backend: string; status: string; shots: string | null; price: string | null;
      created_at: Date; started_at: Date | null; finished_at: Date | null;
    }>(
      `SELECT id, service, kind, backend, status, input->'task'->>'shots' AS shots, input->>'list_price_micros' AS price, created_at, started_at, finished_at
         FROM quantum_jobs WHERE account_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR service = $3)
        ORDER BY created_at DESC LIMIT ${limit}`,
      [accountId, f.status ?? null, f.service ?? null],
    );
    for (const j of q) {
      const start = j.started_at ? new Date(j.started_at).getTime() : null;
      const end = j.finished_at ? new Date(j.finished_at).getTime() : start !== null && ACTIVE.has(j.status) ? Date.now() : null;
      rows.push({
        id: j.id, service: j.service, origin: 'jobs', kind: j.kind, backend: j.backend, status: j.status,
        shots: j.shots === null ? null : Number(j.shots), createdAt: new Date(j.created_at),
        durationMs: start !== null && end !== null ? end - start : null,
        costUsd: j.price === null ? (j.kind === 'run' ? 0 : null) : Number(j.price) / 1e6,
      });
    }
  }
  // An emulated supplier job costs what the suppliers price it at (their row), not a list price of the job system.
  const emulated = rows.filter((r) => r.service === 'suppliers').map((r) => r.id);
  if (emulated.length && (await hasTable(deps, 'supplier_jobs'))) {
    const priced = await deps.ctx.db.query<{ quantum_job_id: string; micros: string }>(
      'SELECT quantum_job_id, COALESCE(charged_micros, estimated_micros) AS micros FROM supplier_jobs WHERE account_id = $1 AND quantum_job_id = ANY($2::text[])',
      [accountId, emulated],
    );
    const cost = new Map(priced.map((p) => [p.quantum_job_id, Number(p.micros) / 1e6]));
    for (const r of rows) if (cost.has(r.id)) r.costUsd = cost.get(r.id)!;
  }
  if ((!f.service || f.service === 'suppliers') && (await hasTable(deps, 'supplier_jobs'))) {
    // Remote supplier jobs: the emulated ones are already listed from the shared job table.
    const s = await deps.ctx.db.query<{ id: string; supplier: string; backend: string; status: string; shots: number; estimated_micros: string; charged_micros: string | null; created_at: Date; completed_at: Date | null }>(
      `SELECT id, supplier, backend, status, shots, estimated_micros, charged_micros, created_at, completed_at FROM supplier_jobs
        WHERE account_id = $1 AND quantum_job_id IS NULL AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC LIMIT ${limit}`,
      [accountId, f.status ?? null],
    );
    for (const j of s) {
      rows.push({
        id: j.id, service: 'suppliers', origin: 'supplier', kind: `remote (${j.supplier})`, backend: j.backend, status: j.status, shots: j.shots,
        createdAt: new Date(j.created_at), durationMs: j.completed_at ? new Date(j.completed_at).getTime() - new Date(j.created_at).getTime() : null,
        costUsd: Number(j.charged_micros ?? j.estimated_micros) / 1e6,
      });
    }
  }
  return rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()).slice(0, limit);
}

/** What changes whenever a job of the account is added or changes state, and how many are active (page-events.ts). */
export async function accountJobsState(deps: QcosDeps, accountId: string): Promise<AccountJobsState> {
  const [q] = await deps.ctx.db.query<{ n: number; u: Date | null; active: number }>(
    `SELECT count(*)::int AS n, max(updated_at) AS u, (count(*) FILTER (WHERE status IN ('queued', 'validating', 'optimizing', 'running')))::int AS active
       FROM quantum_jobs WHERE account_id = $1`,
    [accountId],
  );
  let key = `${q?.n ?? 0}/${q?.u ? new Date(q.u).getTime() : 0}`;
  let active = Number(q?.active ?? 0);
  if (await hasTable(deps, 'supplier_jobs')) {
    const [r] = await deps.ctx.db.query<{ n: number; u: Date | null; active: number }>(
      `SELECT count(*)::int AS n, max(updated_at) AS u, (count(*) FILTER (WHERE status IN ('queued', 'running')))::int AS active
         FROM supplier_jobs WHERE account_id = $1 AND quantum_job_id IS NULL`,
      [accountId],
    );
    key += `|${r?.n ?? 0}/${r?.u ? new Date(r.u).getTime() : 0}`;
    active += Number(r?.active ?? 0);
  }
  return { key, active };
}

function jobRows(rows: JobRow[], prefix: string): SafeHtml {
  if (!rows.length) return html`<tr><td colspan="8" class="muted" id="no-jobs">No jobs match.</td></tr>`;
  return html`${rows.map(
    (j) => html`<tr data-job-id="${j.id}" data-status="${j.status}" data-service="${j.service}">
<td><a href="${prefix}/jobs/${j.id}"><code>${j.id}</code></a></td>
<td>${SERVICES[j.service] ?? j.service}</td><td>${j.backend}</td><td><span class="status ${j.status}">${j.status}</span></td>
<td class="num">${j.shots ?? '—'}</td><td>${when(j.createdAt)}</td><td class="num">${dur(j.durationMs)}</td><td class="num">${usd(j.costUsd)}</td></tr>`,
  )}`;
}

/** The histogram: the most frequent outcomes as bars, the rest summed into one; probabilities in the table and on hover. */
export function histogram(counts: Record<string, number>): { svg: SafeHtml; table: SafeHtml; bars: Array<{ outcome: string; count: number }> } {
  const sorted = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const total = sorted.reduce((s, [, c]) => s + c, 0) || 1;
  const bars = sorted.slice(0, HISTOGRAM_BARS).map(([outcome, count]) => ({ outcome, count }));
  const rest = sorted.slice(HISTOGRAM_BARS);
  if (rest.length) bars.push({ outcome: `other (${rest.length})`, count: rest.reduce((s, [, c]) => s + c, 0) });
  // The scale is the most frequent single outcome's: the summed rest, often far taller, is clipped
  // at the top with its count written on it rather than flattening every other bar.
  const max = Math.max(1, ...bars.slice(0, HISTOGRAM_BARS).map((b) => b.count));
  const H = 220;
  const bw = Math.max(14, Math.min(48, Math.floor(640 / Math.max(1, bars.length))));
  const labelH = Math.max(...bars.map((b) => b.outcome.length)) * 6.5 + 10;
  const W = bars.length * bw + 50;
  const svg = html`<svg class="histogram" viewBox="0 0 ${W} ${H + labelH + 10}" width="${W}" height="${H + labelH + 10}" role="img" aria-label="Counts of ${sorted.length} outcomes">
<line x1="40" y1="${H}" x2="${W}" y2="${H}" stroke="#94a3b8"/>
<text x="36" y="14" text-anchor="end" class="tick">${max}</text><text x="36" y="${H}" text-anchor="end" class="tick">0</text>
${bars.map((b, i) => {
  const clipped = b.count > max;
  const h = Math.round((Math.min(b.count, max) / max) * (H - 10) * 100) / 100;
  const x = 44 + i * bw;
  return html`<g class="bar-group"><rect class="bar${i === HISTOGRAM_BARS ? ' other' : ''}${clipped ? ' clipped' : ''}" data-outcome="${b.outcome}" data-count="${b.count}" x="${x}" y="${H - h}" width="${bw - 4}" height="${h}"><title>${b.outcome}: ${b.count} (${((100 * b.count) / total).toFixed(2)} %)</title></rect>
${clipped ? html`<path class="break" d="M ${x - 1} ${H - h + 14} l ${(bw - 2) / 2} -5 l ${(bw - 2) / 2} 5" fill="none" stroke="#ffffff" stroke-width="2.5"/><text class="bar-label" x="${x + (bw - 4) / 2}" y="${H - h + 28}" text-anchor="middle" transform="rotate(-90 ${x + (bw - 4) / 2} ${H - h + 28})">${b.count}</text>` : ''}
<text class="outcome" transform="translate(${x + (bw - 4) / 2 + 4} ${H + 6}) rotate(90)">${b.outcome}</text></g>`;
})}
</svg>`;
  const table = html`<table class="probs"><thead><tr><th>Outcome</th><th>Count</th><th>Probability</th></tr></thead><tbody>${bars.map(
    (b) => html`<tr><td><code>${b.outcome}</code></td><td class="num">${b.count}</td><td class="num">${(b.count / total).toFixed(4)}</td></tr>`,
  )}</tbody></table>`;
  return { svg, table, bars };
}

function circuitFigure(title: string, qasm: string | undefined, id: string): SafeHtml {
  if (!qasm) return html`<figure class="circuit-fig" id="${id}"><figcaption>${title}</figcaption><p class="muted">Not available.</p></figure>`;
  try {
    const c = parseQasm(qasm);
    const n = circuitCounts(c);
    return html`<figure class="circuit-fig" id="${id}" data-gates="${n.gates}" data-depth="${n.depth}"><figcaption>${title}: <strong>${n.gates}</strong> gates, depth <strong>${n.depth}</strong>, ${c.numQubits} qubits</figcaption>
<div class="circuit-scroll">${raw(circuitSvg(c))}</div></figure>`;
  } catch (err) {
    return html`<figure class="circuit-fig" id="${id}"><figcaption>${title}</figcaption><p class="error">Cannot draw: ${(err as Error).message}</p></figure>`;
  }
}

/** The job's evidence bundle (when its service issued one): the verification of each check, and downloads. */
function evidenceCard(stored: StoredBundle | null, v: VerificationResult | null, link: string): SafeHtml {
  if (!stored || !v) return html`<section class="card" id="evidence"><h2>Evidence</h2><p class="muted" id="no-evidence">No evidence bundle for this job.</p></section>`;
  return html`<section class="card" id="evidence" data-valid="${v.valid ? 'yes' : 'no'}"><h2>Evidence</h2>
<p>Bundle <code>${stored.bundle_id}</code> (${stored.kind}) · <span class="status ${v.valid ? 'completed' : 'failed'}" id="evidence-verdict">${v.valid ? 'verified' : 'verification failed'}</span> <span class="muted">key ${v.key_id ?? '—'}</span></p>
<ul class="checks">${Object.entries(v.checks).map(([name, c]) => html`<li data-check="${name}" data-verdict="${c.verdict}"><span class="status ${c.verdict === 'valid' ? 'completed' : 'failed'}">${c.verdict}</span> ${name.replaceAll('_', ' ')}${c.reason ? html` <span class="muted reason">${c.reason}</span>` : ''}</li>`)}</ul>
<p class="muted evidence-how">Verified on this page: the signature against ${stored.service}'s published keys, and each hash recomputed over the data it pins (a hash whose data the page does not hold is checked for form only, and says so).</p>
<p class="downloads">Download: <a href="${link}?format=json" download>JSON</a> · <a href="${link}?format=cbor" download>CBOR</a> · <a href="${link}?format=pdf" download>PDF</a></p></section>`;
}

function header(session: ConsoleSession, prefix: string): SafeHtml {
  return html`<header class="top"><h1><a href="${prefix}/">Lattice quantum jobs</a></h1><span class="who">${session.email}</span><button type="button" class="secondary" id="signout">Sign out</button></header>`;
}

function filterValue(v: unknown, allowed: readonly string[]): string | undefined {
  return typeof v === 'string' && allowed.includes(v) ? v : undefined;
}

export async function registerPage(app: ServiceApp, deps: QcosDeps, prefix: string): Promise<void> {
  const sessions = new ConsoleSessions(deps.ctx.db, {
    table: 'qcos_sessions',
    cookie: 'lattice_qcos',
    path: `${prefix}/`,
    now: deps.ctx.now,
    notAuthenticated: () => qcosError('UNAUTHORIZED', 'Not signed in'),
    badCredentials: () => qcosError('UNAUTHORIZED', 'Invalid email or password'),
  });
  const assets = await serveAssets(app, { dir: fileURLToPath(new URL('../web/', import.meta.url)), prefix: `${prefix}/assets` });
  const page = { styles: [assets.url('qcos.css')], modules: [assets.url('qcos.js')], icon: assets.url('icon.svg') };
  const hidden = { hide: true };
  const guard = sessions.required();
  const serviceIds = Object.keys(SERVICES);
  const filters = (q: unknown) => {
    const o = (q ?? {}) as Record<string, unknown>;
    return { status: filterValue(o.status, STATUSES), service: filterValue(o.service, serviceIds) };
  };

  registerConsoleSignIn(app, sessions, prefix);
  const live = registerJobEvents(app, {
    prefix,
    guard,
    accountOf: (req) => sessions.of(req).accountId,
    state: (accountId) => accountJobsState(deps, accountId),
    rows: async (accountId, query) => {
      const rows = await listAccountJobs(deps, accountId, filters(query));
      return { rows: jobRows(rows, prefix).value, active: rows.filter((r) => ACTIVE.has(r.status)).length };
    },
    status: async (accountId, id) => {
      const read = await ownJob(accountId, id);
      const status = read?.job.status ?? (await remoteSupplierJob(deps, accountId, id))?.status;
      if (!status) return null;
      const supplier = !read || read.job.service === 'suppliers' ? await supplierCancel(deps.ctx.db, accountId, id) : null;
      return { status, state: status + cancelMark(supplier, ACTIVE.has(status)) };
    },
    cards: async (accountId) => {
      const [usage, balance] = await Promise.all([usageLines(deps, accountId), balanceCard(deps, accountId)]);
      return { usage: usageCard(usage).value, balance: balance.value };
    },
  });
  app.get(`${prefix}/console/jobs`, { schema: hidden, preHandler: guard }, async (req) => {
    const rows = await listAccountJobs(deps, sessions.of(req).accountId, filters(req.query));
    return { rows: jobRows(rows, prefix).value, active: rows.filter((r) => ACTIVE.has(r.status)).length, jobs: rows.map((r) => ({ id: r.id, service: r.service, status: r.status })) };
  });

  const ownJob = async (accountId: string, id: string) => {
    const [row] = await deps.ctx.db.query<{ service: string }>('SELECT service FROM quantum_jobs WHERE id = $1 AND account_id = $2', [id, accountId]);
    if (!row) return null;
    return getJobWithResult<TaskResult>(deps.ctx, { service: row.service, accountId }, id);
  };
  app.get(`${prefix}/console/jobs/:id/status`, { schema: hidden, preHandler: guard }, async (req) => {
    const read = await ownJob(sessions.of(req).accountId, (req.params as { id: string }).id);
    if (!read) throw qcosError('NOT_FOUND', 'Job not found');
    return { job_id: read.job.id, status: read.job.status };
  });
  app.post(`${prefix}/console/jobs/:id/cancel`, { schema: hidden, preHandler: guard }, async (req, reply) => {
    const accountId = sessions.of(req).accountId;
    const id = (req.params as { id: string }).id;
    const read = await ownJob(accountId, id);
    // A supplier job's cancel goes through the suppliers service (page-supplier-cancel.ts): accepted, answered there.
    const supplier = !read || read.job.service === 'suppliers' ? (await hasTable(deps, 'supplier_jobs')) && (await supplierCancel(deps.ctx.db, accountId, id)) : null;
    if (supplier) {
      const asked = await requestSupplierCancel(deps.ctx.db, accountId, supplier.rowId, deps.ctx.now());
      if (asked === 'not_queued') {
        const status = read?.job.status ?? (await remoteSupplierJob(deps, accountId, id))?.status;
        throw qcosError('CONFLICT', `Job ${id} is ${status}: a supplier cancels only jobs still queued`, { status });
      }
      live.poke(accountId);
      return reply.code(202).send({ job_id: id, cancel: 'requested' });
    }
    if (!read) throw qcosError('NOT_FOUND', `Job ${id} not found`);
    const out = await cancelJob(deps.ctx, { service: read.job.service, accountId }, id);
    if (out.outcome === 'not_found') throw qcosError('NOT_FOUND', `Job ${id} not found`);
    if (out.outcome === 'already_finished') throw qcosError('CONFLICT', `Job ${id} already ${out.job.status}; only queued or running jobs can be cancelled`, { status: out.job.status });
    live.poke(accountId);
    return { job_id: id, status: 'cancelled', previous_status: out.previous };
  });

  const evidenceOf = async (job: QuantumJob<JobInput>, result: TaskResult | null, accountId: string) => {
    const stored = await bundleForSubject(deps.ctx.db, { service: job.service, subjectId: job.id, accountId });
    if (!stored) return { stored: null, verified: null };
    // Verified as a client holding the bundle would: the signature against the issuing service's
    // published keys, and each hash recomputed, over the data the bundle embeds or the job's own
    // (evidenceInputs); a hash whose data the page does not hold says so in its reason.
    const keys = await new EvidenceKeys(deps.ctx.db, stored.service).publicKeys();
    const verified = await verifyBundle(stored.bundle, { keys, now: deps.ctx.now(), hashInputs: evidenceInputs(stored.kind, job) });
    return { stored, verified: withResultsHash(stored, verified, result) };
  };
  app.get(`${prefix}/console/jobs/:id/evidence`, { schema: hidden, preHandler: guard }, async (req, reply) => {
    const accountId = sessions.of(req).accountId;
    const id = (req.params as { id: string }).id;
    const format = (req.query as { format?: unknown } | undefined)?.format ?? 'json';
    if (!isExportFormat(format)) throw qcosError('INVALID_REQUEST', 'format must be json, cbor or pdf');
    const read = await ownJob(accountId, id);
    const stored = read ? await bundleForSubject(deps.ctx.db, { service: read.job.service, subjectId: id, accountId }) : null;
    if (!stored) throw qcosError('NOT_FOUND', `No evidence bundle for job ${id}`);
    const out = await exportBundle(stored.bundle, format);
    return reply.type(out.contentType).header('content-disposition', `attachment; filename="${out.filename}"`).send(out.body);
  });

  app.get(`${prefix}/`, { schema: hidden }, async (req, reply) => {
    const session = await sessions.find(req);
    if (!session) return sendPage(reply, { ...page, title: 'Sign in · Lattice quantum jobs', body: consoleSignInView('Lattice quantum jobs') });
    const f = filters(req.query);
    const [rows, usage, balance] = await Promise.all([listAccountJobs(deps, session.accountId, f), usageLines(deps, session.accountId), balanceCard(deps, session.accountId)]);
    const opt = (v: string, label: string, cur?: string) => html`<option value="${v}"${v === (cur ?? '') ? html` selected` : ''}>${label}</option>`;
    const body = html`${header(session, prefix)}
<main class="jobs-page">
  <section class="tiles">${usageCard(usage)}${balance}</section>
  <section class="card">
    <div class="row spread"><h2>Jobs</h2>
      <form id="filters" method="get" class="inline">
        <label>Status <select name="status">${opt('', 'any')}${STATUSES.map((s) => opt(s, s, f.status))}</select></label>
        <label>Service <select name="service">${opt('', 'any')}${serviceIds.map((s) => opt(s, SERVICES[s]!, f.service))}</select></label>
        <button type="submit" class="secondary">Filter</button>
      </form></div>
    <div class="table-wrap"><table class="jobs" id="jobs" data-active="${rows.filter((r) => ACTIVE.has(r.status)).length}">
      <thead><tr><th>Job</th><th>Service</th><th>Backend</th><th>Status</th><th>Shots</th><th>Submitted (UTC)</th><th>Duration</th><th>Cost</th></tr></thead>
      <tbody id="jobs-body">${jobRows(rows, prefix)}</tbody></table></div>
    <p class="muted" id="live-note" aria-live="polite"></p>
  </section>
</main>`;
    return sendPage(reply, { ...page, title: 'Lattice quantum jobs', body });
  });

  app.get(`${prefix}/jobs/:id`, { schema: hidden }, async (req, reply) => {
    const session = await sessions.find(req);
    if (!session) return reply.redirect(`${prefix}/`);
    const id = (req.params as { id: string }).id;
    const read = await ownJob(session.accountId, id);
    const remote = read ? null : await remoteSupplierJob(deps, session.accountId, id);
    if (remote) {
      const cancel = await supplierCancel(deps.ctx.db, session.accountId, id);
      return sendPage(reply, { ...page, title: `Job ${id} · Lattice quantum jobs`, body: html`${header(session, prefix)}${remoteJobView(remote, cancel)}` });
    }
    if (!read) {
      return sendPage(reply, { ...page, title: 'Job not found · Lattice quantum jobs', body: html`${header(session, prefix)}<main><section class="card"><h2>Job not found</h2><p>No job <code>${id}</code> in this account.</p></section></main>` }, 404);
    }
    const job = read.job as QuantumJob<JobInput & { list_price_micros?: number }>;
    const result = read.result;
    const active = ACTIVE.has(job.status);
    // An emulated supplier job is cancelled by the suppliers service, while still queued.
    const supplier = job.service === 'suppliers' ? await supplierCancel(deps.ctx.db, session.accountId, job.id) : null;
    const cancellable = supplier ? supplier.cancellable : active;
    const hist = result && Object.keys(result.counts ?? {}).length ? histogram(result.counts) : null;
    const q = result?.quality;
    const o = result?.optimization;
    const evidence = await evidenceOf(job, result, session.accountId);
    const measured = result && job.input.task.qasm && Object.keys(result.counts ?? {}).length ? measuredDistance(job.input.task.qasm, result.counts) : null;
    const body = html`${header(session, prefix)}
<main class="job-page" id="job" data-job-id="${job.id}" data-status="${job.status}" data-active="${active ? 'yes' : 'no'}" data-state="${job.status + cancelMark(supplier, active)}">
  <section class="card">
    <div class="row spread"><h2>Job <code>${job.id}</code> <span class="status ${job.status}" id="job-status">${job.status}</span></h2>
    ${cancellable ? html`<button type="button" class="danger" id="cancel">Cancel job</button>` : ''}</div>
    <p class="error" id="cancel-error" hidden></p>
    ${supplier ? supplierCancelNote(supplier, active) : ''}
    <dl class="facts">
      <dt>Service</dt><dd>${SERVICES[job.service] ?? job.service}</dd><dt>Backend</dt><dd>${job.backend}</dd><dt>Kind</dt><dd>${job.kind}</dd>
      <dt>Shots</dt><dd>${job.input.task.shots}</dd><dt>Submitted</dt><dd>${when(job.createdAt)}</dd><dt>Finished</dt><dd>${when(job.finishedAt)}</dd>
      <dt>Run time</dt><dd>${dur(job.executionMs)}</dd>${supplier ? html`<dt>Cost</dt><dd>${usd(supplier.costMicros / 1e6)}${supplier.charged ? '' : html` <span class="muted">estimated</span>`}</dd>` : html`<dt>List price</dt><dd>${usd(typeof job.input.list_price_micros === 'number' ? job.input.list_price_micros / 1e6 : 0)}</dd>`}
      ${job.error ? html`<dt>Error</dt><dd class="error">${job.error.code}: ${job.error.message}</dd>` : ''}
    </dl>
  </section>
  <section class="card"><h2>Circuit</h2>
    ${circuitFigure('As submitted', job.input.task.qasm, 'circuit-before')}
    ${o ? html`${circuitFigure(`After optimization (level ${job.input.task.optimizationLevel ?? 0})`, o.optimized_circuit, 'circuit-after')}<p class="muted">Gates ${o.original_gates} → ${o.optimized_gates} (${o.gate_reduction_percent} % fewer), depth ${o.original_depth} → ${o.optimized_depth} (${o.depth_reduction_percent} % less).</p>` : html`<p class="muted">${active ? 'The optimized circuit appears when the job has run.' : 'No optimization for this job.'}</p>`}
  </section>
  <section class="card" id="results"><h2>Results</h2>
    ${hist ? html`<p class="muted">${result!.shots} shots, ${Object.keys(result!.counts).length} distinct outcomes${Object.keys(result!.counts).length > HISTOGRAM_BARS ? `; the ${HISTOGRAM_BARS} most frequent drawn, the rest summed` : ''}.</p>
      <div class="hist-wrap"><div class="hist-scroll">${hist.svg}</div><div class="probs-wrap">${hist.table}</div></div>` : html`<p class="muted" id="no-results">${active ? 'Results appear when the job completes.' : 'No results.'}</p>`}
  </section>
  ${q || measured ? html`<section class="card" id="quality"><h2>Quality</h2><dl class="facts">
    ${q ? html`<dt>Success probability</dt><dd>${q.success_probability.toFixed(4)}</dd><dt>Fidelity estimate</dt><dd>${q.fidelity_estimate.toFixed(4)}</dd>
    <dt>${q.method === 'ideal_simulator' ? 'Backend vs ideal distribution' : 'Backend vs ideal (TVD)'}</dt><dd id="backend-tvd">${q.total_variation_distance === null ? '—' : q.method === 'ideal_simulator' ? 'identical: a noiseless simulator samples the ideal distribution' : q.total_variation_distance.toFixed(4)}</dd>` : ''}
    ${measured ? html`<dt>Counts vs ideal (TVD)</dt><dd id="measured-tvd" data-tvd="${measured.tvd}">${measured.tvd.toFixed(4)} <span class="muted">(sampling ${measured.shots} shots alone gives about ${measured.samplingTvd.toFixed(4)})</span></dd>` : ''}
    ${q ? html`<dt>Method</dt><dd>${q.method.replaceAll('_', ' ')}</dd>` : ''}
    ${result?.method ? html`<dt>Simulation</dt><dd>${result.method}, ${result.executed_qubits} qubits, ${dur(result.execution_time_ms)}</dd>` : ''}</dl></section>` : ''}
  ${evidenceCard(evidence.stored, evidence.verified, `${prefix}/console/jobs/${job.id}/evidence`)}
</main>`;
    return sendPage(reply, { ...page, title: `Job ${job.id} · Lattice quantum jobs`, body });
  });
}

/**
 * The data a bundle's pinned hashes were taken over, where the job holds it: core pins the
 * circuit as submitted (services/core/evidence.ts, `circuit_hash`). Platform and nav bundles
 * embed what they hash; a runtime bundle pins its result document, which the page does not hold.
 */
function evidenceInputs(kind: string, job: QuantumJob<JobInput>): HashInputs {
  return kind === 'core' && typeof job.input.task.qasm === 'string' ? { circuit_hash: job.input.task.qasm } : {};
}

/** Core's bundle also pins the counts (`execution_proof.results_hash`): compared with the job's own, as core's verify does. */
function withResultsHash(stored: StoredBundle, v: VerificationResult, result: TaskResult | null): VerificationResult {
  const proof = stored.bundle.execution_proof as Record<string, unknown> | undefined;
  if (stored.kind !== 'core' || !proof || typeof proof.results_hash !== 'string' || !result) return v;
  const ok = proof.results_hash === sha3HashJson(result.counts);
  const checks = { ...v.checks, results_hash: ok ? { verdict: 'valid' as const } : { verdict: 'invalid' as const, reason: 'execution_proof.results_hash does not match the SHA3-256 of the counts this job produced' } };
  return { ...v, valid: v.valid && ok, checks };
}

interface RemoteSupplierJob {
  id: string;
  supplier: string;
  provider: string;
  backend: string;
  status: string;
  remoteStatus: string | null;
  remoteId: string | null;
  shots: number;
  qasm: string;
  estimatedMicros: number;
  chargedMicros: number | null;
  result: { counts?: Record<string, number>; shots?: number } | null;
  error: { code: string; message: string } | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A remote job of the suppliers (interfaces 2 and 4) of the account, from their table when it exists. */
async function remoteSupplierJob(deps: QcosDeps, accountId: string, id: string): Promise<RemoteSupplierJob | null> {
  if (!(await hasTable(deps, 'supplier_jobs'))) return null;
  const [j] = await deps.ctx.db.query<{
    id: string; supplier: string; provider: string; backend: string; status: string; remote_status: string | null; remote_id: string | null; shots: number; qasm: string;
    estimated_micros: string; charged_micros: string | null; result: RemoteSupplierJob['result'] | string | null; error: RemoteSupplierJob['error'] | string | null; created_at: Date; updated_at: Date;
  }>(
    `SELECT id, supplier, provider, backend, status, remote_status, remote_id, shots, qasm, estimated_micros, charged_micros, result, error, created_at, updated_at
       FROM supplier_jobs WHERE id = $1 AND account_id = $2 AND quantum_job_id IS NULL`,
    [id, accountId],
  );
  if (!j) return null;
  const json = <T>(v: T | string | null): T | null => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
  return {
    id: j.id, supplier: j.supplier, provider: j.provider, backend: j.backend, status: j.status, remoteStatus: j.remote_status, remoteId: j.remote_id,
    shots: j.shots, qasm: j.qasm, estimatedMicros: Number(j.estimated_micros), chargedMicros: j.charged_micros === null ? null : Number(j.charged_micros),
    result: json(j.result), error: json(j.error), createdAt: new Date(j.created_at), updatedAt: new Date(j.updated_at),
  };
}

/**
 * What a supplier job's cancel is waiting for, or why the supplier refused it. The request is
 * answered by the suppliers service (page-supplier-cancel.ts); the page renders anew when it is.
 */
function supplierCancelNote(c: SupplierCancel, active: boolean): SafeHtml {
  if (c.requestedAt && active) {
    return html`<p class="notice" id="cancel-requested">Cancel requested at ${when(c.requestedAt)} UTC: the suppliers service asks the supplier, and this page shows the answer.</p>`;
  }
  if (c.refused) return html`<p class="error" id="cancel-refused">The supplier did not cancel the job: ${c.refused}</p>`;
  if (active && !c.cancellable) return html`<p class="muted" id="cancel-note">A supplier cancels only jobs still waiting in its queue; this one has started.</p>`;
  return html``;
}

/**
 * A remote supplier job's page: what the suppliers' table records of it, and cancel while it is
 * still queued (asked of the supplier by the suppliers service, which holds that connection).
 */
function remoteJobView(j: RemoteSupplierJob, cancel: SupplierCancel | null): SafeHtml {
  const active = ACTIVE.has(j.status);
  const counts = j.result?.counts ?? {};
  const hist = Object.keys(counts).length ? histogram(counts) : null;
  const measured = hist ? measuredDistance(j.qasm, counts) : null;
  return html`<main class="job-page" id="job" data-job-id="${j.id}" data-status="${j.status}" data-active="${active ? 'yes' : 'no'}" data-origin="supplier" data-state="${j.status + cancelMark(cancel, active)}">
  <section class="card">
    <div class="row spread"><h2>Job <code>${j.id}</code> <span class="status ${j.status}" id="job-status">${j.status}</span></h2>
    ${cancel?.cancellable ? html`<button type="button" class="danger" id="cancel">Cancel job</button>` : ''}</div>
    <p class="error" id="cancel-error" hidden></p>
    ${cancel ? supplierCancelNote(cancel, active) : ''}
    <dl class="facts">
      <dt>Service</dt><dd>${SERVICES.suppliers} · remote</dd><dt>Supplier</dt><dd>${j.provider}</dd><dt>Backend</dt><dd>${j.backend}</dd>
      <dt>Supplier's status</dt><dd>${j.remoteStatus ?? '—'}${j.remoteId ? html` <span class="muted">(<code>${j.remoteId}</code>)</span>` : ''}</dd>
      <dt>Shots</dt><dd>${j.shots}</dd><dt>Submitted</dt><dd>${when(j.createdAt)}</dd><dt>Last change</dt><dd>${when(j.updatedAt)}</dd>
      <dt>Cost</dt><dd>${j.chargedMicros !== null ? usd(j.chargedMicros / 1e6) : html`${usd(j.estimatedMicros / 1e6)} <span class="muted">estimated</span>`}</dd>
      ${j.error ? html`<dt>Error</dt><dd class="error">${j.error.code}: ${j.error.message}</dd>` : ''}
    </dl>
  </section>
  <section class="card"><h2>Circuit</h2>${circuitFigure('As submitted', j.qasm, 'circuit-before')}</section>
  <section class="card" id="results"><h2>Results</h2>
    ${hist ? html`<p class="muted">${j.result?.shots ?? j.shots} shots, ${Object.keys(counts).length} distinct outcomes.</p><div class="hist-wrap"><div class="hist-scroll">${hist.svg}</div><div class="probs-wrap">${hist.table}</div></div>` : html`<p class="muted" id="no-results">${active ? 'Results appear when the supplier returns them.' : 'No results.'}</p>`}
  </section>
  ${measured ? html`<section class="card" id="quality"><h2>Quality</h2><dl class="facts"><dt>Counts vs ideal (TVD)</dt><dd id="measured-tvd" data-tvd="${measured.tvd}">${measured.tvd.toFixed(4)} <span class="muted">(sampling ${measured.shots} shots alone gives about ${measured.samplingTvd.toFixed(4)})</span></dd></dl></section>` : ''}
</main>`;
}
