// Event streams for pages: events arrive as written, a browser leaving ends its stream, and
// closing the app ends the streams still open instead of waiting on them.
import assert from 'node:assert/strict';
import { get, type IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { createServiceApp } from './app.ts';
import { EventStreams, type EventStream } from './sse.ts';

async function start() {
  const app = await createServiceApp({ docs: { title: 't', description: 'd', version: '1' }, formatError: (e) => ({ error: { code: e.code, message: e.message } }) });
  const streams = new EventStreams(app);
  const open: EventStream[] = [];
  const closed: number[] = [];
  app.get('/events', { schema: { hide: true } }, async (req, reply) => {
    const s = streams.open(req, reply, { retryMs: 1500 });
    const n = open.push(s);
    s.onClose(() => closed.push(n));
    s.send('hello', { n });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const a = app.server.address();
  return { app, streams, open, closed, url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/events` };
}

/** A plain connection of its own (no client pool that might open another behind our back). */
function open(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(url, { agent: false }, resolve).on('error', reject));
}

async function readUntil(res: IncomingMessage, seen: { text: string }, re: RegExp): Promise<void> {
  res.setEncoding('utf8');
  while (!re.test(seen.text)) {
    const chunk = await new Promise<string | null>((resolve) => {
      const onData = (c: string) => done(c);
      const onEnd = () => done(null);
      const done = (v: string | null) => {
        res.off('data', onData);
        res.off('end', onEnd);
        res.pause();
        resolve(v);
      };
      res.on('data', onData);
      res.on('end', onEnd);
      res.resume();
    });
    if (chunk === null) throw new Error(`stream ended before ${re}: ${seen.text}`);
    seen.text += chunk;
  }
}

async function ended(res: IncomingMessage): Promise<void> {
  if (res.readableEnded) return;
  res.resume();
  await new Promise((resolve) => res.on('end', resolve));
}

test('events arrive in the text/event-stream format with the retry given, and a browser leaving ends its stream', async () => {
  const t = await start();
  try {
    const res = await open(t.url);
    assert.equal(res.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'no-store');
    const seen = { text: '' };
    await readUntil(res, seen, /event: hello\ndata: \{"n":1\}\n\n/);
    assert.match(seen.text, /^retry: 1500\n\n/);
    t.open[0]!.send('rows', { a: [1, 2] });
    await readUntil(res, seen, /event: rows\ndata: \{"a":\[1,2\]\}\n\n/);
    assert.equal(t.streams.size, 1);
    res.destroy();
    while (t.streams.size) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(t.closed, [1]);
    assert.equal(t.open[0]!.closed, true);
    t.open[0]!.send('late', {});
  } finally {
    await t.app.close();
  }
});

test('closing the app ends the streams still open, and their readers see the end', async () => {
  const t = await start();
  const readers = await Promise.all([1, 2].map(() => open(t.url)));
  for (const r of readers) await readUntil(r, { text: '' }, /event: hello/);
  assert.equal(t.streams.size, 2);
  await t.app.close();
  assert.equal(t.streams.size, 0);
  assert.deepEqual([...t.closed].sort(), [1, 2]);
  for (const r of readers) await ended(r);
});
