// The quantum jobs page in a real browser (Debian's Chromium): sign in with a console user, see
// the jobs submitted through the API with the right histogram bars, open a job's circuit diagram
// and count its gates, cancel a running job and a supplier's queued one, watch usage and balance
// follow the jobs; at desktop and phone widths, with nothing loaded from outside the machine.
// Screenshots go to docs/.
import assert from 'node:assert/strict';
import { get, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { parseQasm } from '../../engines/quantum/index.ts';
import { counts as circuitCounts } from '../../engines/quantum/optimizer/metrics.ts';
import { createConsoleUser } from '../../platform/identity/console-users.ts';
import { setPlan } from '../../platform/identity/accounts.ts';
import { incrementWithinLimit, monthPeriod } from '../../platform/identity/usage.ts';
import { decodeBundleCbor, EvidenceKeys, newBundleId, saveBundle, sealBundle, sha3Hash, verifyBundle } from '../../platform/evidence/index.ts';
import { cancelJob, submitJob, waitForJob } from '../../platform/quantum-jobs/index.ts';
import { getBalance, topUp, usdToMicros } from '../../platform/billing/index.ts';
import { createKey } from '../../platform/identity/keys.ts';
import { migrate } from '../../platform/storage/migrate.ts';
import { supplierMigrations } from '../suppliers/migrations.ts';
import { buildSuppliers } from '../suppliers/app.ts';
import { loadSuppliersConfig } from '../suppliers/config.ts';
import { launchBrowser, openPage, PHONE, type TestBrowser } from '../../platform/testing/browser.ts';
import { call, type TestService } from '../../platform/testing/harness.ts';
import { BELL, client, ghz, startQcos } from './testing.ts';

const DOCS = process.env.LATTICE_SCREENSHOTS ?? fileURLToPath(new URL('./docs/', import.meta.url));
const PASSWORD = 'correct horse battery';
/** Seven qubits in superposition: 128 outcomes, more than the histogram draws one by one. */
const WIDE = ['OPENQASM 2.0;', 'include "qelib1.inc";', 'qreg q[7];', 'creg c[7];', 'h q;', 'cx q[0],q[1];', 'cx q[2],q[3];', 't q[4];', 'tdg q[4];', 'measure q -> c;'].join('\n');

let svc: TestService;
let api: ReturnType<typeof client>;
let browser: TestBrowser;
let email: string;
let bellId: string;
let wideId: string;

before(async () => {
  svc = await startQcos();
  const { key, accountId } = await svc.newKey({ plan: 'pro' });
  api = client(svc, key);
  email = `qcos-${accountId}@example.test`;
  await createConsoleUser(svc.db, { accountId, email, password: PASSWORD });
  const bell = await api.post('/v2/circuits', { circuit: { qasm: BELL, format: 'qasm2' }, backend: 'statevector_simulator', shots: 1000, options: { seed_simulator: 7 } });
  assert.equal(bell.status, 201, JSON.stringify(bell.body));
  bellId = bell.body.job_id;
  const wide = await api.post('/v2/circuits', { circuit: { qasm: WIDE, format: 'qasm2' }, backend: 'statevector_simulator', shots: 4000, optimization_level: 2, options: { seed_simulator: 3 } });
  assert.equal(wide.status, 201, JSON.stringify(wide.body));
  wideId = wide.body.job_id;
  for (const id of [bellId, wideId]) assert.equal((await api.get(`/v2/jobs/${id}?wait=30`)).body.status, 'completed');
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await svc?.close();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${svc.url}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#jobs').waitFor();
}

test('without a session: the sign-in form, and the console routes answer 401 in the qcos error shape', async () => {
  const res = await fetch(`${svc.url}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  assert.match(await res.text(), /<form id="signin"/);
  const jobs = await call(`${svc.url}/console/jobs`);
  assert.equal(jobs.status, 401);
  for (const path of ['/console/jobs/events', `/console/jobs/${bellId}/events`]) assert.equal((await call(`${svc.url}${path}`)).status, 401, path);
  assert.equal(jobs.body.error.code, 'UNAUTHORIZED');
  const job = await fetch(`${svc.url}/jobs/${bellId}`, { redirect: 'manual' });
  assert.equal(job.status, 302);
});

test('the jobs list, a job\'s histogram (bar heights match the counts) and its circuit diagram (gate count)', async () => {
  const { page, context, problems } = await openPage(browser);
  await page.goto(`${svc.url}/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Invalid email or password').waitFor();
  await signIn(page);
  for (const id of [bellId, wideId]) await page.locator(`tr[data-job-id="${id}"][data-status="completed"]`).waitFor();
  assert.match((await page.locator(`tr[data-job-id="${bellId}"]`).innerText()).replace(/\s+/g, ' '), /QCOS \(1\) statevector_simulator completed 1000 /);
  await page.locator('#usage .usage-line[data-service="qcos"]').waitFor();
  await page.locator('#available').waitFor();
  // Filters: failed shows none; completed shows both.
  await page.locator('select[name="status"]').selectOption('failed');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.locator('#no-jobs').waitFor();
  await page.locator('select[name="status"]').selectOption('completed');
  await page.getByRole('button', { name: 'Filter' }).click();
  // The filtered list arrives after the click: wait for both rows before counting.
  for (const id of [bellId, wideId]) await page.locator(`#jobs-body tr[data-job-id="${id}"]`).waitFor();
  assert.equal(await page.locator('#jobs-body tr[data-job-id]').count(), 2);
  await page.screenshot({ path: join(DOCS, 'qcos-jobs.png'), fullPage: true });

  // The Bell job: two bars whose heights are in the ratio of the counts.
  await page.locator(`a[href$="/jobs/${bellId}"]`).click();
  await page.locator('#results svg.histogram').waitFor();
  const results = (await api.get(`/v2/jobs/${bellId}/results`)).body;
  const bars = await page.locator('svg.histogram rect.bar').evaluateAll((els: any[]) => els.map((e) => ({ outcome: e.dataset.outcome, count: Number(e.dataset.count), h: Number(e.getAttribute('height')) })));
  assert.deepEqual(Object.fromEntries(bars.map((b) => [b.outcome, b.count])), results.counts);
  const top = Math.max(...bars.map((b) => b.h));
  const most = Math.max(...bars.map((b) => b.count));
  for (const b of bars) assert.ok(Math.abs(b.h / top - b.count / most) < 0.001, JSON.stringify(bars));
  // Quality: the counts' distance from the ideal Bell distribution (½ each of 00 and 11), as
  // computed here from the counts the API returns; finite shots make it nonzero unless the split is exact.
  const shots = Object.values(results.counts as Record<string, number>).reduce((a, b) => a + b, 0);
  const expected = 0.5 * (Math.abs((results.counts['00'] ?? 0) / shots - 0.5) + Math.abs((results.counts['11'] ?? 0) / shots - 0.5) + Object.entries(results.counts as Record<string, number>).filter(([k]) => k !== '00' && k !== '11').reduce((a, [, c]) => a + c / shots, 0));
  const shown = Number(await page.locator('#measured-tvd').getAttribute('data-tvd'));
  assert.ok(Math.abs(shown - expected) < 1e-12, `${shown} vs ${expected}`);
  assert.equal((await page.locator('#measured-tvd').innerText()).slice(0, 6), expected.toFixed(4));
  assert.match(await page.locator('#backend-tvd').innerText(), /identical: a noiseless simulator/);
  // The diagram: one gate mark per gate of the submitted circuit.
  const before = page.locator('#circuit-before svg.circuit');
  assert.equal(await before.locator('g.op.gate').count(), circuitCounts(parseQasm(BELL)).gates);
  assert.equal(await before.locator('g.op.measure').count(), 2);
  assert.equal(await page.locator('#circuit-before').getAttribute('data-gates'), '2');
  await page.locator('#quality').waitFor();
  await page.screenshot({ path: join(DOCS, 'qcos-job-bell.png'), fullPage: true });

  // The wide job: 32 bars and one summing the rest; the optimized circuit is drawn with its counts.
  await page.goto(`${svc.url}/jobs/${wideId}`);
  const wide = (await api.get(`/v2/jobs/${wideId}/results`)).body;
  const n = Object.keys(wide.counts).length;
  assert.ok(n > 32, `${n} outcomes`);
  assert.equal(await page.locator('svg.histogram rect.bar').count(), 33);
  const other = page.locator('svg.histogram rect.bar.other');
  const sorted = Object.values(wide.counts as Record<string, number>).sort((a, b) => b - a);
  assert.equal(Number(await other.getAttribute('data-count')), sorted.slice(32).reduce((a, b) => a + b, 0));
  assert.equal(await other.getAttribute('data-outcome'), `other (${n - 32})`);
  // Each outcome's bar is to the scale of the most frequent one; the summed rest, taller here, is clipped at the top.
  const wideBars = await page.locator('svg.histogram rect.bar:not(.other)').evaluateAll((els: any[]) => els.map((e) => ({ count: Number(e.dataset.count), h: Number(e.getAttribute('height')) })));
  for (const b of wideBars) assert.ok(Math.abs(b.h / wideBars[0]!.h - b.count / sorted[0]!) < 0.001, JSON.stringify(b));
  assert.equal(await page.locator('svg.histogram rect.bar.other.clipped').count(), 1);
  assert.equal(Number(await other.getAttribute('height')), wideBars[0]!.h);
  const after = page.locator('#circuit-after');
  await after.waitFor();
  const opt = (await api.get(`/v2/jobs/${wideId}/results`)).body;
  assert.equal(await after.locator('g.op.gate').count(), Number(await after.getAttribute('data-gates')));
  assert.ok(Number(await after.getAttribute('data-gates')) <= Number(await page.locator('#circuit-before').getAttribute('data-gates')), JSON.stringify(opt.quality_metrics));
  await page.screenshot({ path: join(DOCS, 'qcos-job-wide.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('jobs submitted after the page opened appear and change state by server-sent events, with no reload and no polling; a running job is cancelled from its page at phone width', async () => {
  const { page, context, problems } = await openPage(browser, { viewport: PHONE });
  await signIn(page);
  const requests: Array<{ path: string; type: string }> = [];
  page.on('request', (req) => requests.push({ path: new URL(req.url()).pathname, type: req.resourceType() }));
  await page.locator('#jobs[data-stream="open"]').waitFor();
  await page.evaluate('window.stillTheSamePage = true');
  // The quantum minutes held by unfinished jobs, as the usage card shows them (it is replaced live).
  const quantumHeld = '#usage .usage-line[data-service="qcos"] .meter[data-meter="Quantum"]';
  const held = async () => Number(await page.locator(quantumHeld).getAttribute('data-held'));
  const heldBefore = await held();
  const r = await api.post('/v2/circuits', { circuit: { qasm: ghz(22), format: 'qasm2' }, backend: 'lattice_falcon_27', shots: 2000, optimization_level: 0 });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.job_id as string;
  const other = await api.post('/v2/circuits', { circuit: { qasm: ghz(22), format: 'qasm2' }, backend: 'lattice_falcon_27', shots: 2000, optimization_level: 0 });
  assert.equal(other.status, 201, JSON.stringify(other.body));
  const quick = await api.post('/v2/circuits', { circuit: { qasm: BELL, format: 'qasm2' }, backend: 'statevector_simulator', shots: 100 });
  assert.equal(quick.status, 201, JSON.stringify(quick.body));
  // They appear without a reload; the quick one is seen completed, and one cancelled through the API is seen cancelled.
  await page.locator(`tr[data-job-id="${id}"]`).waitFor({ timeout: 20_000 });
  const otherRow = page.locator(`tr[data-job-id="${other.body.job_id}"]`);
  assert.ok(['queued', 'validating', 'optimizing', 'running'].includes((await otherRow.getAttribute('data-status'))!));
  await page.locator(`tr[data-job-id="${quick.body.job_id}"][data-status="completed"]`).waitFor({ timeout: 30_000 });
  // Both device jobs hold their minutes: the usage card shows what the usage API counts, without a reload.
  const heldNow = `Number(document.querySelector(${JSON.stringify(quantumHeld)}).dataset.held)`;
  const heldPeak = (await api.get('/v2/account/usage')).body.quantum_minutes.held as number;
  assert.ok(heldPeak > heldBefore, `${heldPeak} minutes held`);
  await page.waitForFunction(`${heldNow} === ${heldPeak}`);
  assert.equal((await api.del(`/v2/jobs/${other.body.job_id}`)).status, 200);
  await page.locator(`tr[data-job-id="${other.body.job_id}"][data-status="cancelled"]`).waitFor({ timeout: 20_000 });
  // The cancelled job's hold is refunded: the card follows, still without a reload.
  await page.waitForFunction(`${heldNow} < ${heldPeak}`);
  assert.equal(await page.evaluate('window.stillTheSamePage'), true, 'the page was not reloaded');
  // Its one event stream stayed open, and the page fetched no JSON of the list or a status since it loaded.
  assert.deepEqual(requests.filter((q) => q.type === 'fetch' || q.type === 'xhr').map((q) => q.path), []);
  assert.equal(await page.locator('#jobs').getAttribute('data-stream'), 'open');
  await page.screenshot({ path: join(DOCS, 'qcos-jobs-phone.png'), fullPage: true });
  await page.goto(`${svc.url}/jobs/${id}`);
  const status = await page.locator('#job').getAttribute('data-status');
  if (status !== 'running') await page.locator('#job[data-stream="open"]').waitFor();
  assert.ok(['queued', 'validating', 'optimizing', 'running'].includes(status!), status!);
  await page.getByRole('button', { name: 'Cancel job' }).click();
  await page.locator('#job[data-status="cancelled"]').waitFor();
  assert.equal((await api.get(`/v2/jobs/${id}`)).body.status, 'cancelled');
  assert.equal(await page.locator('#cancel').count(), 0);
  const fits = await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth');
  assert.ok(fits, 'no sideways scrolling of the page (diagrams scroll in their own box)');
  await page.screenshot({ path: join(DOCS, 'qcos-job-cancelled-phone.png'), fullPage: true });
  // Cancelling again is refused in the qcos error shape.
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const again = await call(`${svc.url}/console/jobs/${id}/cancel`, { method: 'POST', body: {}, headers: { cookie } });
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'CONFLICT');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a job of another quantum service is listed, and its evidence bundle is verified on its page and downloads as JSON, CBOR and PDF', async () => {
  // A core (interface 3) job on the shared job system, with the bundle its service issues.
  const [{ account_id: accountId }] = await svc.db.query<{ account_id: string }>('SELECT account_id FROM console_users WHERE email = $1', [email]);
  const job = await submitJob(svc.ctx, {
    service: 'core', accountId, kind: 'run', backend: 'statevector_simulator', minutesKind: 'simulation', holdMinutes: 1,
    input: { task: { qasm: BELL, backend: 'statevector_simulator', shots: 200, optimizationLevel: 1, execute: true } },
  });
  assert.equal((await waitForJob(svc.ctx, { service: 'core', accountId }, job.id, 30_000))?.status, 'completed');
  // One instant for both: the run's end may not come after the bundle's creation.
  const sealedAt = new Date().toISOString();
  const bundle = await sealBundle(new EvidenceKeys(svc.db, 'core'), 'core', {
    bundle_id: newBundleId('evb'), version: '3.0', created_at: sealedAt, circuit_hash: sha3Hash(BELL),
    execution_proof: { backend: 'statevector_simulator', shots: 200, timestamp: sealedAt },
  });
  await saveBundle(svc.db, { bundleId: bundle.bundle_id as string, service: 'core', kind: 'core', accountId, subjectId: job.id, bundle });

  const { page, context, problems } = await openPage(browser);
  await signIn(page);
  await page.locator(`tr[data-job-id="${job.id}"][data-service="core"]`).waitFor();
  await page.locator('select[name="service"]').selectOption('core');
  await page.getByRole('button', { name: 'Filter' }).click();
  assert.deepEqual(await page.locator('#jobs-body tr[data-job-id]').evaluateAll((els: any[]) => els.map((e) => e.dataset.jobId)), [job.id]);
  // Opened from its link (the list's live refresh may swap the row under a click).
  await page.goto(new URL((await page.locator(`a[href$="/jobs/${job.id}"]`).getAttribute('href'))!, svc.url).href);
  await page.locator('#evidence').waitFor();
  assert.equal(await page.locator('#evidence').getAttribute('data-valid'), 'yes', await page.locator('#evidence').innerText());
  assert.equal(await page.locator('#evidence-verdict').textContent(), 'verified');
  assert.equal(await page.locator('#evidence li[data-verdict="valid"][data-check="signature"]').count(), 1);
  await page.screenshot({ path: join(DOCS, 'qcos-job-evidence.png'), fullPage: true });
  // The downloads: the same bundle in each format, and it verifies against the published keys.
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const href = (await page.locator('#evidence a', { hasText: 'JSON' }).getAttribute('href'))!;
  const json = await fetch(new URL(href, svc.url), { headers: { cookie } });
  assert.equal(json.status, 200);
  assert.match(json.headers.get('content-disposition') ?? '', /attachment; filename=".+\.json"/);
  const downloaded = await json.json();
  assert.deepEqual(downloaded, bundle);
  // The verdicts shown are a verification's own: the test verifies the downloaded bundle against
  // the published keys with the circuit the job ran, and the page shows the same checks and reasons.
  const keys = await new EvidenceKeys(svc.db, 'core').publicKeys();
  const mine = await verifyBundle(downloaded, { keys, hashInputs: { circuit_hash: BELL } });
  assert.equal(mine.valid, true, JSON.stringify(mine.checks));
  const shown = await page.locator('#evidence li[data-check]').evaluateAll((els: any[]) => els.map((e) => [e.dataset.check, e.dataset.verdict, e.querySelector('.reason')?.textContent ?? null]));
  assert.deepEqual(shown, Object.entries(mine.checks).map(([name, c]) => [name, c.verdict, c.reason ?? null]));
  assert.equal(mine.checks.hash!.reason, undefined, 'the circuit hash was recomputed, not only its form checked');
  const cbor = await fetch(new URL(href.replace('format=json', 'format=cbor'), svc.url), { headers: { cookie } });
  assert.deepEqual(await decodeBundleCbor(new Uint8Array(await cbor.arrayBuffer())), bundle);
  const pdf = await fetch(new URL(href.replace('format=json', 'format=pdf'), svc.url), { headers: { cookie } });
  assert.equal(pdf.headers.get('content-type'), 'application/pdf');
  assert.equal(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
  const bad = await call(`${svc.url}/console/jobs/${job.id}/evidence?format=xml`, { headers: { cookie } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'INVALID_REQUEST');
  // A bundle altered in storage fails verification on the page.
  await svc.db.query(`UPDATE evidence_bundles SET bundle = jsonb_set(bundle::jsonb, '{execution_proof,shots}', '999')::jsonb WHERE subject_id = $1`, [job.id]);
  await page.reload();
  await page.locator('#evidence[data-valid="no"]').waitFor();
  assert.equal(await page.locator('#evidence li[data-check="signature"]').getAttribute('data-verdict'), 'invalid');
  // A bundle signed by core's own key over another circuit than the job's: the signature holds, the recomputed hash does not.
  const second = await submitJob(svc.ctx, {
    service: 'core', accountId, kind: 'run', backend: 'statevector_simulator', minutesKind: 'simulation', holdMinutes: 1,
    input: { task: { qasm: BELL, backend: 'statevector_simulator', shots: 100, optimizationLevel: 1, execute: true } },
  });
  assert.equal((await waitForJob(svc.ctx, { service: 'core', accountId }, second.id, 30_000))?.status, 'completed');
  const elsewhere = await sealBundle(new EvidenceKeys(svc.db, 'core'), 'core', {
    bundle_id: newBundleId('evb'), version: '3.0', created_at: new Date().toISOString(), circuit_hash: sha3Hash(ghz(3)),
    execution_proof: { backend: 'statevector_simulator', shots: 100, timestamp: new Date().toISOString() },
  });
  await saveBundle(svc.db, { bundleId: elsewhere.bundle_id as string, service: 'core', kind: 'core', accountId, subjectId: second.id, bundle: elsewhere });
  await page.goto(`${svc.url}/jobs/${second.id}`);
  await page.locator('#evidence[data-valid="no"]').waitFor();
  assert.equal(await page.locator('#evidence li[data-check="signature"]').getAttribute('data-verdict'), 'valid');
  assert.equal(await page.locator('#evidence li[data-check="hash"]').getAttribute('data-verdict'), 'invalid');
  assert.equal((await verifyBundle(elsewhere, { keys, hashInputs: { circuit_hash: BELL } })).checks.hash!.verdict, 'invalid');
  // A job without a bundle says so.
  await page.goto(`${svc.url}/jobs/${bellId}`);
  await page.locator('#no-evidence').waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});

test('remote supplier jobs (interfaces 2 and 4) are listed with the other jobs when the suppliers\' table exists', async () => {
  // One store holds every service's tables in a whole install; here the suppliers' are added to the test store.
  await migrate(svc.db, supplierMigrations);
  const [{ account_id: accountId }] = await svc.db.query<{ account_id: string }>('SELECT account_id FROM console_users WHERE email = $1', [email]);
  const now = new Date();
  await svc.db.query(
    `INSERT INTO supplier_jobs (id, account_id, supplier, public_id, mode, provider, target, backend, remote_id, shots, num_qubits, qasm, circuit_hash, cost_model, estimated_micros, status, created_at, updated_at)
     VALUES ('sjr_page_test', $1, 'a', 'remote-1', 'remote', 'supplier-a', 'qpu', 'supplier_a_qpu', 'r-1', 100, 2, $2, 'h', 'per_shot', 1250000, 'running', $3, $3)`,
    [accountId, BELL, now],
  );
  const login = await fetch(`${svc.url}/console/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  const all = await call(`${svc.url}/console/jobs`, { headers: { cookie } });
  assert.equal(all.status, 200);
  assert.deepEqual(all.body.jobs.find((j: { id: string }) => j.id === 'sjr_page_test'), { id: 'sjr_page_test', service: 'suppliers', status: 'running' });
  assert.match(all.body.rows, /<tr data-job-id="sjr_page_test" data-status="running" data-service="suppliers">[\s\S]*?Suppliers \(2, 4\)[\s\S]*?supplier_a_qpu[\s\S]*?\$1\.25/);
  assert.ok(all.body.active >= 1);
  const suppliersOnly = await call(`${svc.url}/console/jobs?service=suppliers`, { headers: { cookie } });
  assert.deepEqual(suppliersOnly.body.jobs.map((j: { id: string }) => j.id), ['sjr_page_test']);
  const completedOnly = await call(`${svc.url}/console/jobs?service=suppliers&status=completed`, { headers: { cookie } });
  assert.deepEqual(completedOnly.body.jobs, []);
  // Its row links to its page: what the suppliers' table records, and the circuit drawn.
  assert.match(all.body.rows, /<a href="\/jobs\/sjr_page_test">/);
  const page = await fetch(`${svc.url}/jobs/sjr_page_test`, { headers: { cookie } });
  assert.equal(page.status, 200);
  const text = await page.text();
  assert.match(text, /id="job" data-job-id="sjr_page_test" data-status="running" data-active="yes" data-origin="supplier"/);
  assert.match(text, /supplier_a_qpu/);
  assert.equal(text.match(/<g class="op gate/g)?.length, circuitCounts(parseQasm(BELL)).gates);
  // Its status events follow the table: a change there reaches an open stream.
  // A plain connection of its own: a pooled client may leave a spare connection open that holds up the server's close.
  const events = await new Promise<IncomingMessage>((resolve, reject) =>
    get(`${svc.url}/console/jobs/sjr_page_test/events`, { agent: false, headers: { cookie, accept: 'text/event-stream' } }, resolve).on('error', reject),
  );
  assert.equal(events.headers['content-type'], 'text/event-stream; charset=utf-8');
  events.setEncoding('utf8');
  let seen = '';
  events.on('data', (chunk: string) => {
    seen += chunk;
  });
  const readUntil = async (re: RegExp) => {
    while (!re.test(seen)) {
      assert.ok(!events.readableEnded, seen);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  await readUntil(/event: status\ndata: \{"job_id":"sjr_page_test","status":"running"\}/);
  await svc.db.query("UPDATE supplier_jobs SET status = 'completed', result = $2, updated_at = now() WHERE id = $1", ['sjr_page_test', JSON.stringify({ counts: { '00': 52, '11': 48 }, shots: 100 })]);
  await readUntil(/"status":"completed"/);
  events.destroy();
  const done = await (await fetch(`${svc.url}/jobs/sjr_page_test`, { headers: { cookie } })).text();
  assert.equal(done.match(/<rect class="bar/g)?.length, 2);
  // In the browser, at phone width.
  const { page: phone, context, problems } = await openPage(browser, { viewport: PHONE });
  await signIn(phone);
  await phone.goto(`${svc.url}/jobs/sjr_page_test`);
  await phone.locator('#job[data-status="completed"] svg.histogram').waitFor();
  // 52/48 against the ideal half and half.
  assert.ok(Math.abs(Number(await phone.locator('#measured-tvd').getAttribute('data-tvd')) - 0.02) < 1e-12);
  assert.ok(await phone.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), 'no sideways scrolling');
  await phone.screenshot({ path: join(DOCS, 'qcos-job-remote-phone.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a supplier job still queued is cancelled from its page through the suppliers service; the list shows its hold released without a reload', async () => {
  // The suppliers service on the same store, as in a whole install, with its leader loop (which answers the page's request) running often.
  await migrate(svc.db, supplierMigrations);
  const suppliers = await buildSuppliers(svc.ctx, { prefix: '' }, { ...loadSuppliersConfig({}), pollIntervalMs: 200 });
  await suppliers.listen({ port: 0, host: '127.0.0.1' });
  const address = suppliers.server.address();
  const suppliersUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const [{ account_id: accountId }] = await svc.db.query<{ account_id: string }>('SELECT account_id FROM console_users WHERE email = $1', [email]);
  await setPlan(svc.db, accountId, 'suppliers', 'pro');
  const { key } = await createKey(svc.db, { accountId, service: 'suppliers', prefix: 'qsup', kind: 'api_key', role: 'member', expiresAt: null });
  await topUp(svc.db, { accountId, micros: usdToMicros(1000), service: 'operator', reference: 'page test' });
  const B = `${suppliersUrl}/api/v1/supplier_b_quantum`;
  const headers = { 'x-api-key': key };
  let blocker: string | null = null;
  try {
    const list = await openPage(browser);
    await signIn(list.page);
    await list.page.locator('#jobs[data-stream="open"]').waitFor();
    await list.page.evaluate('window.stillTheSamePage = true');
    const heldText = async () => Number((await list.page.locator('#held').innerText()).replace(/[$,]/g, ''));
    const heldBefore = await heldText();
    // The emulated device runs one job at a time: a long one first, and the one to cancel waits behind it.
    const first = await call(`${B}/execute`, { body: { qasm: ghz(22), backend: 'lattice_falcon_27', shots: 2000 }, headers });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    blocker = first.body.job_id as string;
    const waiting = await call(`${B}/execute`, { body: { qasm: BELL, backend: 'lattice_falcon_27', shots: 100 }, headers });
    assert.equal(waiting.status, 201, JSON.stringify(waiting.body));
    const id = waiting.body.job_id as string;
    // Both are listed, and their holds show on the balance card, without a reload.
    await list.page.locator(`tr[data-job-id="${id}"][data-service="suppliers"]`).waitFor();
    const heldBoth = (await getBalance(svc.db, accountId)).heldMicros / 1e6;
    assert.ok(heldBoth > heldBefore, `${heldBoth} held`);
    await list.page.waitForFunction(`Number(document.getElementById('held').textContent.replace(/[$,]/g, '')) === ${heldBoth.toFixed(2)}`);

    // Its page at phone width: queued, with a cancel button; the cancel is asked of the suppliers service.
    const { page, context, problems } = await openPage(browser, { viewport: PHONE });
    await signIn(page);
    await page.goto(`${svc.url}/jobs/${id}`);
    assert.equal(await page.locator('#job').getAttribute('data-status'), 'queued');
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await page.locator('#job[data-status="cancelled"]').waitFor({ timeout: 20_000 }).catch(async (err) => {
      const rows = await svc.db.query('SELECT s.status, s.cancel_requested_at, s.cancel_refused, q.status AS job_status FROM supplier_jobs s JOIN quantum_jobs q ON q.id = s.quantum_job_id WHERE q.id = ANY($1::text[])', [[id, blocker]]);
      throw new Error(`${(err as Error).message}\n${JSON.stringify(rows)}\n${await page.locator('#job').evaluate((e: any) => e.outerHTML.slice(0, 600))}`);
    });
    assert.equal(await page.locator('#cancel').count(), 0);
    const status = await call(`${B}/status/${id}`, { headers });
    assert.equal(status.body.status, 'cancelled', JSON.stringify(status.body));
    assert.ok(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), 'no sideways scrolling');
    await page.screenshot({ path: join(DOCS, 'qcos-job-supplier-cancelled-phone.png'), fullPage: true });
    // Asking again is refused in the qcos error shape; the suppliers API agrees it is no longer cancellable.
    const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const again = await call(`${svc.url}/console/jobs/${id}/cancel`, { method: 'POST', body: {}, headers: { cookie } });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'CONFLICT');
    assert.equal((await call(`${B}/jobs/${id}`, { method: 'DELETE', headers })).body.error_code, 'JOB_NOT_CANCELLABLE');
    // The running one offers no cancel: a supplier cancels only what still waits in its queue.
    await page.goto(`${svc.url}/jobs/${blocker}`);
    if ((await page.locator('#job').getAttribute('data-status')) !== 'queued') assert.equal(await page.locator('#cancel').count(), 0);
    assert.deepEqual(problems, []);
    await context.close();

    // The list, still the same page: the row cancelled and the hold released.
    await list.page.locator(`tr[data-job-id="${id}"][data-status="cancelled"]`).waitFor();
    const heldAfter = (await getBalance(svc.db, accountId)).heldMicros / 1e6;
    assert.ok(heldAfter < heldBoth, `${heldAfter} < ${heldBoth}`);
    await list.page.waitForFunction(`Number(document.getElementById('held').textContent.replace(/[$,]/g, '')) === ${heldAfter.toFixed(2)}`);
    assert.equal(await list.page.evaluate('window.stillTheSamePage'), true, 'the list was not reloaded');
    await list.page.locator('#balance').screenshot({ path: join(DOCS, 'qcos-balance.png') });
    assert.deepEqual(list.problems, []);
    await list.context.close();
  } finally {
    // The long job is not the test's subject: stopped in the job system, and the suppliers service closed.
    if (blocker) await cancelJob(svc.ctx, { service: 'suppliers', accountId }, blocker);
    await suppliers.close();
  }
});

test('usage is shown against each quantum service\'s plan quota: qcos minutes and credits, core evaluations, the suppliers\' jobs per key today', async () => {
  const [{ account_id: accountId }] = await svc.db.query<{ account_id: string }>('SELECT account_id FROM console_users WHERE email = $1', [email]);
  await setPlan(svc.db, accountId, 'core', 'free');
  await setPlan(svc.db, accountId, 'suppliers', 'pro');
  const before = Number((await svc.db.query<{ value: string }>("SELECT value FROM usage_counters WHERE account_id = $1 AND service = 'core' AND counter = 'evaluations'", [accountId]))[0]?.value ?? 0);
  for (let i = 0; i < 3; i++) await incrementWithinLimit(svc.db, { accountId, service: 'core', counter: 'evaluations', period: monthPeriod() }, 100);
  const day = new Date().toISOString().slice(0, 10);
  await svc.db.query("INSERT INTO usage_counters (account_id, service, counter, period, value) VALUES ($1, 'suppliers', 'jobs_day:key_a', $2, 7), ($1, 'suppliers', 'jobs_day:key_b', $2, 2)", [accountId, day]);
  const usage = (await api.get('/v2/account/usage')).body;
  const { page, context, problems } = await openPage(browser);
  await signIn(page);
  const meter = (service: string, name: string) => page.locator(`#usage .usage-line[data-service="${service}"] .meter[data-meter="${name}"]`);
  assert.equal(await meter('qcos', 'Quantum').getAttribute('data-included'), '100');
  assert.equal(Number(await meter('qcos', 'Quantum').getAttribute('data-used')), usage.quantum_minutes.used);
  assert.equal(Number(await meter('qcos', 'Simulation').getAttribute('data-used')), usage.simulation_minutes.used);
  assert.equal(await meter('qcos', 'Simulation').getAttribute('data-included'), String(usage.simulation_minutes.included));
  assert.equal(await meter('qcos', 'Optimization credits').getAttribute('data-used'), String(usage.optimization_credits.used));
  assert.equal(await meter('core', 'Evaluations').getAttribute('data-used'), String(before + 3));
  assert.equal(await meter('core', 'Evaluations').getAttribute('data-included'), '100');
  assert.match(await meter('core', 'Evaluations').innerText(), new RegExp(`Evaluations: ${before + 3} of 100`));
  assert.equal(await meter('suppliers', 'Jobs today').getAttribute('data-used'), '7');
  assert.equal(await meter('suppliers', 'Jobs today').getAttribute('data-included'), '100');
  assert.equal(await meter('core', 'Evaluations').locator('progress').getAttribute('value'), String(Math.round(before + 3)));
  await page.locator('#usage').screenshot({ path: join(DOCS, 'qcos-usage.png') });
  assert.deepEqual(problems, []);
  await context.close();
});
