import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { LanguageError } from '../errors.ts';
import { OpenAiProvider } from './openai.ts';
import { RerankHttpProvider } from './rerank-http.ts';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let server: Server;
let base = '';
let handler: Handler = () => {};
let calls = 0;

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      calls++;
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  calls = 0;
});

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const provider = (extra: Partial<ConstructorParameters<typeof OpenAiProvider>[0]> = {}) =>
  new OpenAiProvider({ baseUrl: base, apiKey: 'sk-test', backoffMs: 1, maxBackoffMs: 5, random: () => 0.5, ...extra });
const msgs = [{ role: 'user' as const, content: 'Hello' }];

test('a chat completion is sent with the sampling fields and read with its usage', async () => {
  let seen: Record<string, unknown> = {};
  handler = (req, body, res) => {
    seen = { ...JSON.parse(body), auth: req.headers.authorization, path: req.url };
    json(res, 200, { choices: [{ message: { role: 'assistant', content: 'Hi there' }, finish_reason: 'length' }], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
  };
  const r = await provider().chat({ model: 'm', messages: msgs, temperature: 0.2, top_p: 0.9, max_tokens: 2, stop: ['\n'] });
  assert.deepEqual(r, { model: 'm', content: 'Hi there', finish_reason: 'length', usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
  assert.equal(seen.path, '/v1/chat/completions');
  assert.equal(seen.auth, 'Bearer sk-test');
  assert.equal(seen.temperature, 0.2);
  assert.equal(seen.top_p, 0.9);
  assert.equal(seen.max_tokens, 2);
  assert.deepEqual(seen.stop, ['\n']);
});

test('a streamed chat yields the deltas in order, then finish reason and usage', async () => {
  handler = (_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of ['He', 'llo', '!']) res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: piece } }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: 'stop' }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 } })}\n\n`);
    res.end('data: [DONE]\n\n');
  };
  const chunks = [];
  for await (const c of provider().chatStream({ model: 'm', messages: msgs })) chunks.push(c);
  assert.deepEqual(chunks, [
    { type: 'delta', content: 'He' },
    { type: 'delta', content: 'llo' },
    { type: 'delta', content: '!' },
    { type: 'done', finish_reason: 'stop', usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 } },
  ]);
});

test('503 and 429 are retried with backoff until the upstream answers', async () => {
  handler = (_req, _body, res) => {
    if (calls === 1) return json(res, 503, { error: { message: 'loading' } });
    if (calls === 2) return json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '0' });
    json(res, 200, { choices: [{ message: { content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
  };
  assert.equal((await provider().chat({ model: 'm', messages: msgs })).content, 'ok');
  assert.equal(calls, 3);
});

test('a 400 is not retried and keeps the upstream status and message', async () => {
  handler = (_req, _body, res) => json(res, 400, { error: { message: 'bad temperature', type: 'invalid_request_error' } });
  await assert.rejects(provider().chat({ model: 'm', messages: msgs }), (err: LanguageError) => {
    assert.equal(err.code, 'invalid_request');
    assert.equal(err.status, 400);
    assert.match(err.message, /bad temperature/);
    return true;
  });
  assert.equal(calls, 1);
});

test('retries stop after the configured number and report the last error', async () => {
  handler = (_req, _body, res) => json(res, 502, { detail: 'gateway down' });
  await assert.rejects(provider({ retries: 2 }).chat({ model: 'm', messages: msgs }), (err: LanguageError) => err.code === 'upstream_unavailable' && err.status === 502);
  assert.equal(calls, 3);
});

test('an upstream that does not answer in time gives upstream_timeout, not a hang, and is not retried', async () => {
  handler = () => {};
  await assert.rejects(provider({ timeoutMs: 150 }).chat({ model: 'm', messages: msgs }), (err: LanguageError) => err.code === 'upstream_timeout');
  assert.equal(calls, 1);
});

test('garbage answers give upstream_bad_response', async () => {
  handler = (_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>proxy error</html>');
  };
  await assert.rejects(provider().chat({ model: 'm', messages: msgs }), (err: LanguageError) => err.code === 'upstream_bad_response');
  handler = (_req, _body, res) => json(res, 200, { choices: [] });
  await assert.rejects(provider().chat({ model: 'm', messages: msgs }), (err: LanguageError) => err.code === 'upstream_bad_response');
  handler = (_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end('data: {not json\n\n');
  };
  await assert.rejects(async () => {
    for await (const _ of provider().chatStream({ model: 'm', messages: msgs })) void _;
  }, (err: LanguageError) => err.code === 'upstream_bad_response');
});

test('an unreachable upstream is reported as unavailable after retrying', async () => {
  const p = new OpenAiProvider({ baseUrl: 'http://127.0.0.1:9/v1', retries: 1, backoffMs: 1 });
  await assert.rejects(p.chat({ model: 'm', messages: msgs }), (err: LanguageError) => err.code === 'upstream_unavailable');
});

test('empty message lists are refused before any request', async () => {
  await assert.rejects(provider().chat({ model: 'm', messages: [] }), /messages must be a non-empty list/);
  assert.equal(calls, 0);
});

test('embeddings come back in input order whatever order the server lists them', async () => {
  handler = (_req, body, res) => {
    assert.equal(JSON.parse(body).encoding_format, 'float');
    json(res, 200, { data: [{ index: 1, embedding: [0, 1] }, { index: 0, embedding: [1, 0] }], usage: { prompt_tokens: 4, total_tokens: 4 } });
  };
  const r = await provider().embed('e', ['a', 'b']);
  assert.deepEqual(r.data, [[1, 0], [0, 1]]);
  assert.equal(r.dimensions, 2);
});

test('Cohere-style and TEI-style rerank answers are read and sorted best first', async () => {
  handler = (req, body, res) => {
    const b = JSON.parse(body);
    if (b.texts) return json(res, 200, [{ index: 0, score: 0.1 }, { index: 1, score: 0.9 }]);
    json(res, 200, { results: [{ index: 0, relevance_score: 0.2 }, { index: 1, relevance_score: 0.7 }] });
  };
  const cohere = await new RerankHttpProvider({ baseUrl: base }).rerank('r', 'q', ['x', 'y']);
  assert.deepEqual(cohere.results.map((r) => r.index), [1, 0]);
  const tei = await new RerankHttpProvider({ baseUrl: base, style: 'tei' }).rerank('r', 'q', ['x', 'y'], 1);
  assert.deepEqual(tei.results, [{ index: 1, score: 0.9 }]);
  handler = (_req, _body, res) => json(res, 200, { results: [{ index: 7, relevance_score: 1 }] });
  await assert.rejects(new RerankHttpProvider({ baseUrl: base }).rerank('r', 'q', ['x']), /valid index and score/);
});

test('a pooled connection the server closed while idle is replaced at once, without spending a retry', async () => {
  // The server drops every connection at its second request, as one whose keep-alive timeout ran
  // out just as the client reused the connection: the request never reached a handler.
  const requestsOn = new WeakMap<object, number>();
  let handled = 0;
  const closing = createServer((req, res) => {
    const n = (requestsOn.get(req.socket) ?? 0) + 1;
    requestsOn.set(req.socket, n);
    if (n > 1) {
      req.socket.destroy();
      return;
    }
    req.resume();
    req.on('end', () => {
      handled++;
      json(res, 200, { choices: [{ message: { role: 'assistant', content: `answer ${handled}` }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } });
    });
  });
  await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
  try {
    const p = new OpenAiProvider({ baseUrl: `http://127.0.0.1:${(closing.address() as AddressInfo).port}/v1`, retries: 0 });
    assert.equal((await p.chat({ model: 'm', messages: msgs })).content, 'answer 1');
    assert.equal((await p.chat({ model: 'm', messages: msgs })).content, 'answer 2');
    assert.equal((await p.chat({ model: 'm', messages: msgs })).content, 'answer 3');
    assert.equal(handled, 3);
  } finally {
    closing.closeAllConnections();
    await new Promise<void>((resolve) => closing.close(() => resolve()));
  }
});

test('calls to several upstreams, one after another, each reach their own server, path and credentials (request options are kept per URL)', async () => {
  const seen: string[] = [];
  const other = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(`other ${req.url} ${req.headers.authorization ?? ''}`);
      json(res, 200, { choices: [{ message: { content: 'from other' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1 } });
    });
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const port = (other.address() as AddressInfo).port;
  handler = (req, _body, res) => {
    seen.push(`base ${req.url} ${req.headers.authorization ?? ''}`);
    json(res, 200, { choices: [{ message: { content: 'from base' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1 } });
  };
  try {
    const first = provider();
    const second = new OpenAiProvider({ baseUrl: `http://user:secret@127.0.0.1:${port}/other/v2/`, retries: 0 });
    const ask = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
    const answers = [];
    for (let i = 0; i < 2; i++) answers.push((await first.chat(ask)).content, (await second.chat(ask)).content);
    assert.deepEqual(answers, ['from base', 'from other', 'from base', 'from other']);
    const basic = `Basic ${Buffer.from('user:secret').toString('base64')}`;
    assert.deepEqual(seen, [`base /v1/chat/completions Bearer sk-test`, `other /other/v2/chat/completions ${basic}`, `base /v1/chat/completions Bearer sk-test`, `other /other/v2/chat/completions ${basic}`]);
  } finally {
    other.closeAllConnections();
    await new Promise<void>((resolve) => other.close(() => resolve()));
  }
});

test('an answer whose body stops after its head ends at the deadline, and a caller that aborts mid-body ends it at once', async () => {
  handler = (_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"choices":[');
  };
  const started = performance.now();
  await assert.rejects(provider({ timeoutMs: 150, retries: 0 }).chat({ model: 'm', messages: msgs }), (err: LanguageError) => {
    assert.equal(err.code, 'upstream_timeout');
    assert.match(err.message, /stopped sending its answer/);
    return true;
  });
  assert.ok(performance.now() - started >= 140, 'not before the deadline');
  const controller = new AbortController();
  const reason = new Error('the caller went away');
  const call = provider({ timeoutMs: 60_000, retries: 0 }).chat({ model: 'm', messages: msgs, signal: controller.signal });
  await new Promise((r) => setTimeout(r, 50));
  const aborted = performance.now();
  controller.abort(reason);
  await assert.rejects(call, (err: LanguageError) => {
    assert.equal(err.code, 'upstream_timeout');
    assert.equal((err as { cause?: unknown }).cause, reason);
    return true;
  });
  assert.ok(performance.now() - aborted < 1_000, 'at once, not at the deadline');
});
