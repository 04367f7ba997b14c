/**
 * Unknown fields (variant Q): 400 INVALID_REQUEST naming the field, never dropped. The
 * OpenAI-compatible chat body takes OpenAI's documented parameters and refuses the rest as
 * OpenAI does; the other routes refuse any field they do not take.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startLlm, type LlmTest } from './testing.ts';

let q: LlmTest;
let tenant: { id: string; slug: string; key: string };
before(async () => {
  q = await startLlm();
  tenant = await q.tenant();
});
after(() => q.close());

function assertRefused(r: { status: number; body: any }, message: RegExp) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'INVALID_REQUEST');
  assert.equal(r.body.error.retry_after, null);
  assert.match(r.body.error.message, message);
  assert.equal(typeof r.body.request_id, 'string');
}

const hello = { model: 'lattice-tiny', messages: [{ role: 'user', content: 'hello' }] };

describe('unknown fields (llm)', () => {
  it('chat refuses a field OpenAI does not know, as OpenAI words it', async () => {
    assertRefused(await q.req('/v1/chat/completions', tenant.key, { body: { ...hello, bogus: 1 } }), /^Unrecognized request argument supplied: bogus$/);
    assertRefused(await q.req('/v1/chat/completions', tenant.key, { body: { ...hello, rerankk: 3 } }), /^Unrecognized request argument supplied: rerankk$/);
  });

  it('chat accepts OpenAI parameters at values it honours and refuses the ones it cannot honour by their value', async () => {
    const model = hello.model;
    const ok = await q.req('/v1/chat/completions', tenant.key, {
      body: { model, messages: [{ role: 'user', content: 'hello', name: 'ann' }], max_completion_tokens: 2, n: 1, user: 'u-1', presence_penalty: 0.5, logprobs: false, stream_options: { include_usage: true }, response_format: { type: 'text' } },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.ok(ok.body.usage.completion_tokens <= 2, 'max_completion_tokens caps the reply like max_tokens');
    assertRefused(await q.req('/v1/chat/completions', tenant.key, { body: { model, messages: hello.messages, n: 2 } }), /body\.n must be <= 1/);
  });

  it('tenants, feedback, datasets, training and webhooks refuse unknown fields; the list refuses unknown query parameters', async () => {
    assertRefused(await q.req('/v1/tenants', q.admin, { body: { name: 'x', slug: 'x-unknown', tier: 'free', plan: 'pro' } }), /body\.plan is not a known field/);
    assertRefused(await q.req(`/v1/tenants/${tenant.id}/feedback`, tenant.key, { body: { conversation_id: 'c', message_id: 'm', type: 'rating', rating: 5, comment: 'hi' } }), /body\.comment is not a known field/);
    assertRefused(
      await q.req(`/v1/tenants/${tenant.id}/datasets/register`, tenant.key, { body: { name: 'd', type: 'documents', data_use: { allow_rag: true, allow_training: true } } }),
      /body\.data_use\.allow_training is not a known field.*allow_private_training/,
    );
    assertRefused(await q.req('/v1/webhooks', q.admin, { body: { url: 'https://example.com/h', events: ['tenant.created'], secret: 's'.repeat(16), active: true } }), /body\.active is not a known field/);
    assertRefused(await q.req('/v1/tenants?limt=5', q.admin), /querystring\.limt is not a known field \(did you mean limit\?\)/);
    assertRefused(await q.req(`/v1/tenants/${tenant.id}`, q.admin, { method: 'DELETE', body: { force: true } }), /body\.force is not a known field; this route takes no body/);
    assert.equal((await q.req(`/v1/tenants/${tenant.id}`, q.admin)).status, 200, 'the refused delete deleted nothing');
  });
});
