import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createAccount } from '../identity/accounts.ts';
import { lazyQueue } from '../jobs/queue.ts';
import { platformMigrations } from '../migrations.ts';
import { openTestDatabase, type TestDatabase } from '../testing/harness.ts';
import {
  deleteWebhook,
  emitEvent,
  getWebhook,
  listDeliveries,
  listWebhooks,
  registerWebhook,
  retryDelayMs,
  startWebhookDelivery,
  verifyPayloadSignature,
  verifyWebhookSignature,
  WebhookError,
  type DeliveryLogEntry,
} from './index.ts';

interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local receiver whose answers are scripted per request: a status, or 'hang' to never answer. */
async function receiver(script: (number | 'hang')[], fallback = 200): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ at: Date.now(), headers: req.headers, body });
      const answer = script[received.length - 1] ?? fallback;
      if (answer === 'hang') return; // the sender's timeout ends it
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let t: TestDatabase;
let queue: ReturnType<typeof lazyQueue>;
let ctx: { db: TestDatabase['db']; queue: () => ReturnType<ReturnType<typeof lazyQueue>['get']> };
const servers: Server[] = [];
let accountId: string;
let otherAccountId: string;

before(async () => {
  t = await openTestDatabase(platformMigrations);
  queue = lazyQueue(t.db, { schema: t.queueSchema, maintenanceIntervalSeconds: 1, pollingIntervalSeconds: 0.5 });
  ctx = { db: t.db, queue: queue.get };
  accountId = (await createAccount(t.db, { email: `wh-${Date.now()}@example.test` })).id;
  otherAccountId = (await createAccount(t.db, { email: `wh2-${Date.now()}@example.test` })).id;
  // Short delays for the test: 150 ms, then 300 ms; 400 ms per attempt.
  await startWebhookDelivery(ctx, { baseDelayMs: 150, timeoutMs: 400, maxAttempts: 4 });
});
after(async () => {
  for (const s of servers) s.closeAllConnections(), s.close();
  await queue.stop();
  await t.close();
});

describe('registration', () => {
  test('URLs that are not absolute http(s) are refused with a typed INVALID_URL error', async () => {
    for (const url of ['ftp://example.com/x', 'javascript:alert(1)', 'file:///etc/passwd', '/relative', 'example.com/hook', '', 'http://user:pw@example.com/']) {
      await assert.rejects(
        registerWebhook(t.db, { accountId, service: 'qcos', url, events: ['job.completed'] }),
        (err: unknown) => err instanceof WebhookError && err.code === 'INVALID_URL',
        url,
      );
    }
    assert.deepEqual(await listWebhooks(t.db, { accountId, service: 'qcos' }), [], 'nothing stored');
  });

  test('events must be names, and within the allowed list when one is given', async () => {
    await assert.rejects(registerWebhook(t.db, { accountId, service: 'qcos', url: 'https://example.com/', events: [] }), { code: 'INVALID_EVENTS' });
    await assert.rejects(
      registerWebhook(t.db, { accountId, service: 'qcos', url: 'https://example.com/', events: ['job.exploded'], allowedEvents: ['job.completed', 'job.failed'] }),
      { code: 'INVALID_EVENTS', message: /job.exploded/ },
    );
  });

  test('a webhook is listed, read and deleted only by its owner; its secret is returned once', async () => {
    const wh = await registerWebhook(t.db, { accountId, service: 'llm', url: 'https://example.com/a', events: ['*'] });
    assert.match(wh.secret, /^whsec_/);
    const listed = await listWebhooks(t.db, { accountId, service: 'llm' });
    assert.deepEqual(listed.map((w) => w.id), [wh.id]);
    assert.ok(!('secret' in listed[0]!));
    assert.equal(await getWebhook(t.db, { accountId: otherAccountId, service: 'llm' }, wh.id), null);
    assert.equal(await deleteWebhook(t.db, { accountId: otherAccountId, service: 'llm' }, wh.id), false);
    assert.equal(await deleteWebhook(t.db, { accountId, service: 'llm' }, wh.id), true);
    assert.deepEqual(await listWebhooks(t.db, { accountId, service: 'llm' }), []);
  });
});

describe('event matching', () => {
  test('an event goes to the account-wide webhooks and those of its scope that listen to it, never to others', async () => {
    const sink = await receiver([]);
    servers.push(sink.server);
    const mk = (o: { scope?: string | null; events: string[]; account?: string; service?: string }) =>
      registerWebhook(t.db, { accountId: o.account ?? accountId, service: o.service ?? 'match', scope: o.scope, url: sink.url, events: o.events });
    const wide = await mk({ events: ['tenant.created', 'job.completed'] });
    const all = await mk({ events: ['*'] });
    const tenantA = await mk({ scope: 'tenant_a', events: ['job.completed'] });
    await mk({ scope: 'tenant_b', events: ['job.completed'] });
    await mk({ events: ['job.failed'] });
    await mk({ events: ['job.completed'], account: otherAccountId });
    await mk({ events: ['job.completed'], service: 'other' });
    const a = await emitEvent(ctx, { service: 'match', accountId, scope: 'tenant_a', event: 'job.completed', data: {} });
    assert.deepEqual(new Set(a.webhook_ids), new Set([wide.id, all.id, tenantA.id]));
    const b = await emitEvent(ctx, { service: 'match', accountId, event: 'tenant.created', data: {} });
    assert.deepEqual(new Set(b.webhook_ids), new Set([wide.id, all.id]));
    const none = await emitEvent(ctx, { service: 'match', accountId, event: 'nothing.listens', data: {} });
    assert.deepEqual(none.webhook_ids, [all.id], 'only the webhook of every event');
    const other = await emitEvent(ctx, { service: 'match', accountId: otherAccountId, event: 'tenant.created', data: {} });
    assert.deepEqual(other.webhook_ids, []);
    assert.match(none.event_id, /^evt_[0-9a-f]{24}$/);
  });
});

describe('accounts known to have no webhook', () => {
  /** The store with its statements on the webhooks table counted (the same store: its notices, its rows). */
  let n = 0;
  const counted = () => {
    const db = new Proxy(t.db, {
      get(target, prop) {
        if (prop === 'query') return (text: string, params?: readonly unknown[]) => (/FROM webhooks/.test(text) && n++, target.query(text, params));
        const value = Reflect.get(target, prop) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { ...ctx, db };
  };
  let countedCtx: typeof ctx;
  async function lookups(fn: (c: typeof ctx) => Promise<unknown>): Promise<number> {
    countedCtx ??= counted();
    n = 0;
    await fn(countedCtx);
    return n;
  }

  test('an event of an account without webhooks asks once; a webhook added, changed or deleted by hand, not through this module, is seen on the next event', async () => {
    const account = (await createAccount(t.db, { email: `wh-none-${Date.now()}@example.test` })).id;
    const emit = (c: typeof ctx, event = 'job.completed') => emitEvent(c, { service: 'quiet', accountId: account, event, data: {} });
    assert.equal(await lookups(async (c) => assert.deepEqual((await emit(c)).webhook_ids, [])), 1);
    const again = await lookups(async (c) => assert.deepEqual((await emit(c)).webhook_ids, []));
    if (t.db.kind === 'pglite') assert.equal(again, 0, 'the embedded store answers from memory');

    await t.db.query(
      `INSERT INTO webhooks (id, account_id, service, url, events, secret) VALUES ('wh_by_hand', $1, 'quiet', 'http://127.0.0.1:9/hook', ARRAY['job.failed'], 's')`,
      [account],
    );
    // A webhook that does not take the event: no delivery, but the account is no longer one without webhooks.
    assert.equal(await lookups(async (c) => assert.deepEqual((await emit(c)).webhook_ids, [])), 1);
    assert.equal(await lookups(async (c) => assert.deepEqual((await emit(c)).webhook_ids, [])), 1);
    await t.db.query(`UPDATE webhooks SET events = ARRAY['job.completed'] WHERE id = 'wh_by_hand'`);
    assert.deepEqual((await emit(countedCtx)).webhook_ids, ['wh_by_hand']);
    await t.db.query(`DELETE FROM webhooks WHERE id = 'wh_by_hand'`);
    assert.deepEqual((await emit(countedCtx)).webhook_ids, []);
    assert.deepEqual((await emit(countedCtx)).webhook_ids, []);
    await t.db.query(
      `INSERT INTO webhooks (id, account_id, service, url, events, secret) VALUES ('wh_by_hand_2', $1, 'quiet', 'http://127.0.0.1:9/hook', ARRAY['*'], 's')`,
      [account],
    );
    assert.deepEqual((await emit(countedCtx, 'anything')).webhook_ids, ['wh_by_hand_2']);
    await t.db.query(`UPDATE webhooks SET active = false WHERE id = 'wh_by_hand_2'`);
  });
});

describe('delivery', () => {
  test('a receiver that times out, then fails, then succeeds gets three signed attempts of the same event, each logged', async () => {
    const r = await receiver(['hang', 500, 200]);
    servers.push(r.server);
    const secret = 'test-secret-1';
    const wh = await registerWebhook(t.db, { accountId, service: 'qcos', url: r.url, events: ['job.completed', 'job.failed'], secret, style: 'qcos' });
    const data = { job_id: 'job_123', status: 'completed', backend: 'aer_simulator' };
    const emitted = await emitEvent(ctx, { service: 'qcos', accountId, event: 'job.completed', data });
    assert.deepEqual(emitted.webhook_ids, [wh.id]);

    const log = await until('three logged attempts', async () => {
      const rows = await listDeliveries(t.db, { accountId, service: 'qcos', webhookId: wh.id });
      return rows.length >= 3 && rows;
    });
    assert.deepEqual(
      log.map((d: DeliveryLogEntry) => [d.attempt, d.success, d.status_code]),
      [
        [1, false, null],
        [2, false, 500],
        [3, true, 200],
      ],
    );
    assert.match(log[0]!.error!, /timed out after 400 ms/);
    assert.equal(log[1]!.error, 'HTTP 500');
    assert.equal(log[2]!.error, null);
    assert.ok(log.every((d) => d.event_id === emitted.event_id && d.event === 'job.completed'));
    assert.ok(log[0]!.duration_ms >= 390, `timeout attempt took ${log[0]!.duration_ms} ms`);

    assert.equal(r.received.length, 3);
    // No retry before its delay: 150 ms after the first attempt's end, 300 ms after the second's.
    // Read from the sender's own log, not from arrivals (an arrival lags its send under load): an
    // attempt began at most at its log time less its duration, and its retry was scheduled after
    // that log row was written. The queue's polling (0.5 s here) only adds to a delay, so the
    // doubling itself is checked on retryDelayMs below.
    const began = (d: DeliveryLogEntry) => d.delivered_at.getTime() - d.duration_ms;
    const gap1 = began(log[1]!) - log[0]!.delivered_at.getTime();
    const gap2 = began(log[2]!) - log[1]!.delivered_at.getTime();
    assert.ok(gap1 >= 148 && gap2 >= 298, `gaps ${gap1} ms and ${gap2} ms`);
    for (const [i, got] of r.received.entries()) {
      assert.equal(got.headers['content-type'], 'application/json');
      assert.equal(got.headers['x-webhook-attempt'], String(i + 1));
      assert.equal(got.headers['x-webhook-id'], emitted.event_id);
      assert.equal(got.body, r.received[0]!.body, 'every attempt sends the same bytes');
      assert.ok(verifyWebhookSignature(secret, got.body, got.headers['x-signature'] as string), 'X-Signature over the raw body');
      assert.ok(!verifyWebhookSignature('another-secret', got.body, got.headers['x-signature'] as string));
    }
    const payload = JSON.parse(r.received[2]!.body);
    assert.deepEqual(Object.keys(payload), ['id', 'event', 'timestamp', 'created_at', 'data', 'signature']);
    assert.equal(payload.event, 'job.completed');
    assert.deepEqual(payload.data, data);
    assert.match(payload.signature, /^sha256=[0-9a-f]{64}$/);
    assert.ok(verifyPayloadSignature(secret, payload), 'body signature over the JCS of the payload without it');
    assert.ok(!verifyPayloadSignature(secret, { ...payload, data: { ...data, status: 'failed' } }));
    // Another account sees none of this log.
    assert.deepEqual(await listDeliveries(t.db, { accountId: otherAccountId, service: 'qcos' }), []);
  });

  test('general webhooks get {id, event, created_at, data}; after the last attempt nothing more is sent', async () => {
    const r = await receiver([], 503);
    servers.push(r.server);
    const wh = await registerWebhook(t.db, { accountId, service: 'gen', url: r.url, events: ['thing.done'], secret: 's2' });
    const emitted = await emitEvent(ctx, { service: 'gen', accountId, event: 'thing.done', data: { n: 1 } });
    const log = await until('four failed attempts', async () => {
      const rows = await listDeliveries(t.db, { accountId, service: 'gen', eventId: emitted.event_id });
      return rows.length >= 4 && rows;
    });
    assert.deepEqual(log.map((d) => [d.attempt, d.status_code]), [[1, 503], [2, 503], [3, 503], [4, 503]]);
    const body = JSON.parse(r.received[0]!.body);
    assert.deepEqual(Object.keys(body), ['id', 'event', 'created_at', 'data']);
    assert.equal(body.id, emitted.event_id);
    assert.ok(verifyWebhookSignature('s2', r.received[0]!.body, r.received[0]!.headers['x-signature'] as string));
    // maxAttempts is 4: wait out a fifth delay (150 * 2^3 ms) and see no fifth request.
    await new Promise((res) => setTimeout(res, 1800));
    assert.equal(r.received.length, 4);
    assert.equal((await listDeliveries(t.db, { accountId, service: 'gen', webhookId: wh.id })).length, 4);
  });

  test('a refused connection is logged as a failed attempt; the delays double up to their cap', async () => {
    // A port that was just free: nothing listens on it.
    const closed = await receiver([]);
    await new Promise((res) => closed.server.close(res));
    const wh = await registerWebhook(t.db, { accountId, service: 'refused', url: closed.url, events: ['x.y'] });
    await emitEvent(ctx, { service: 'refused', accountId, event: 'x.y', data: null });
    const [first] = await until('one logged attempt', async () => {
      const rows = await listDeliveries(t.db, { accountId, service: 'refused', webhookId: wh.id });
      return rows.length >= 1 && rows;
    });
    assert.equal(first!.success, false);
    assert.equal(first!.status_code, null);
    assert.equal(first!.error, 'ECONNREFUSED');
    await deleteWebhook(t.db, { accountId, service: 'refused' }, wh.id);
    assert.deepEqual([1, 2, 3, 4].map((a) => retryDelayMs(a, { baseDelayMs: 1000, maxDelayMs: 5000 })), [1000, 2000, 4000, 5000]);
  });
});
