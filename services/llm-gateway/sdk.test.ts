import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { parseConfig } from '../../engines/language/config.ts';
import { getBalance } from '../../platform/billing/index.ts';
import { startFakeUpstream, type FakeUpstream } from './testing/fake-upstream.ts';
import { startGateway, upstreamModels, type GatewayUnderTest } from './testing/harness.ts';

let gw: GatewayUnderTest;
let up: FakeUpstream;
before(async () => {
  up = await startFakeUpstream();
  // The fake upstream's models beside the built-in model, which runs for real (node-llama-cpp).
  gw = await startGateway({ models: parseConfig({ models: upstreamModels(up.url).models.filter((m) => m.provider === 'openai') }) });
});
after(async () => {
  await gw.close();
  await up.close();
});

const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${gw.url}/api/v1`, maxRetries: 0 });

test('the official openai SDK lists models and runs whole and streamed completions unchanged', async () => {
  const ws = await gw.workspace(1);
  const openai = client(ws.key);
  const models = await openai.models.list();
  assert.ok(models.data.some((m) => m.id === 'fast'));
  const whole = await openai.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'hello' }], max_tokens: 2 });
  assert.equal(whole.choices[0]!.message.content, 'w0 w1');
  assert.equal(whole.usage?.completion_tokens, 2);
  const { data, response } = await openai.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'hello' }] }).withResponse();
  assert.equal(data.object, 'chat.completion');
  assert.match(response.headers.get('x-service-request-id') ?? '', /^chatcmpl-/);
  const stream = await openai.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'hello' }], stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  assert.equal(text, 'w0 w1 w2 w3 w4');
});

test('the built-in model answers through the SDK, whole and streamed, and its usage is charged at its price', async () => {
  const ws = await gw.workspace(1);
  const openai = client(ws.key);
  const whole = await openai.chat.completions.create({ model: 'lattice-tiny', messages: [{ role: 'user', content: 'What is a wing?' }], max_tokens: 12, temperature: 0 });
  assert.equal(typeof whole.choices[0]!.message.content, 'string');
  assert.ok(whole.usage!.prompt_tokens > 0 && whole.usage!.completion_tokens > 0 && whole.usage!.completion_tokens <= 12);
  let streamed = '';
  let finish: string | null | undefined;
  for await (const chunk of await openai.chat.completions.create({ model: 'lattice-tiny', messages: [{ role: 'user', content: 'Describe the flow.' }], max_tokens: 8, stream: true })) {
    streamed += chunk.choices[0]?.delta?.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  assert.ok(streamed.length > 0);
  assert.ok(finish === 'stop' || finish === 'length');
  // 0.10 and 0.40 dollars per million tokens: micro-dollars 0.1 and 0.4 per token, rounded up per call.
  const expected = Math.ceil(whole.usage!.prompt_tokens * 0.1 + whole.usage!.completion_tokens * 0.4 - 1e-9);
  await gw.drain();
  const [first] = await gw.db.query<{ cost_micros: number; requests: number }>("SELECT cost_micros, requests FROM llm_gateway_usage WHERE key_id = $1 AND model = 'lattice-tiny'", [ws.keyId]);
  assert.equal(first!.requests, 2);
  assert.ok(first!.cost_micros >= expected);
  assert.equal((await getBalance(gw.db, ws.accountId)).availableMicros, 1_000_000 - first!.cost_micros);
});

test('SDK errors carry the spec statuses and messages: 401, 402, 403, 400', async () => {
  const ws = await gw.workspace(0);
  const poor = client(ws.key);
  await assert.rejects(poor.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'x' }] }), (err: InstanceType<typeof OpenAI.APIError>) => {
    assert.equal(err.status, 402);
    assert.equal(err.message, '402 Insufficient credits');
    assert.equal((err.error as { type?: string }).type, 'insufficient_quota');
    return true;
  });
  await assert.rejects(client('sk-lat_nope0000000000000000000000000000').models.list(), (err: InstanceType<typeof OpenAI.APIError>) => err.status === 401 && /Invalid or expired API key/.test(err.message));
  const rich = client((await gw.workspace(1)).key);
  await assert.rejects(rich.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }), (err: InstanceType<typeof OpenAI.APIError>) => err.status === 403 && err instanceof OpenAI.PermissionDeniedError);
  await assert.rejects(rich.chat.completions.create({ model: 'fast', messages: [] }), (err: InstanceType<typeof OpenAI.APIError>) => err.status === 400 && /model and messages are required/.test(err.message));
});
