import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../engines/language/config.ts';
import { ModelRegistry } from '../../engines/language/registry.ts';
import { chatConfigFromEnv } from './config.ts';
import { SlotModels } from './models.ts';

test('without settings: 1000 messages a day, 500 to pro models, every slot on the default chat model', () => {
  const config = chatConfigFromEnv({});
  assert.deepEqual(config, { dailyMessages: 1000, dailyProMessages: 500, slotModels: {}, maxOutputTokens: null });
  const slots = new SlotModels(new ModelRegistry(parseConfig({})), config);
  assert.equal(slots.platformModel(slots.slot('lattice:frontier-reasoning')), 'lattice-tiny');
  assert.equal(slots.maxTokens(slots.slot('lattice:frontier-reasoning')), 32000);
});

test('the environment sets limits, the reply cap and a platform model per slot', () => {
  const config = chatConfigFromEnv({
    LATTICE_CHAT_DAILY_MESSAGES: '20',
    LATTICE_CHAT_DAILY_PRO_MESSAGES: '5',
    LATTICE_CHAT_MAX_OUTPUT_TOKENS: '256',
    LATTICE_CHAT_MODELS: '{"lattice:code": "coder"}',
  });
  assert.deepEqual(config, { dailyMessages: 20, dailyProMessages: 5, slotModels: { 'lattice:code': 'coder' }, maxOutputTokens: 256 });
  const registry = new ModelRegistry(parseConfig({ models: [{ id: 'coder', provider: 'openai', base_url: 'http://127.0.0.1:9/v1' }] }));
  const slots = new SlotModels(registry, config);
  assert.equal(slots.platformModel(slots.slot('lattice:code')), 'coder');
  assert.equal(slots.platformModel(slots.slot('lattice:compact')), 'lattice-tiny');
  assert.equal(slots.maxTokens(slots.slot('lattice:compact')), 256);
});

test('a bad setting stops the start with a message naming it', () => {
  assert.throws(() => chatConfigFromEnv({ LATTICE_CHAT_DAILY_MESSAGES: '0' }), /LATTICE_CHAT_DAILY_MESSAGES must be a positive integer, got "0"/);
  assert.throws(() => chatConfigFromEnv({ LATTICE_CHAT_DAILY_PRO_MESSAGES: '2.5' }), /LATTICE_CHAT_DAILY_PRO_MESSAGES/);
  assert.throws(() => chatConfigFromEnv({ LATTICE_CHAT_MODELS: '{nope' }), /LATTICE_CHAT_MODELS is not valid JSON/);
  assert.throws(() => chatConfigFromEnv({ LATTICE_CHAT_MODELS: '{"lattice:gpt": "x"}' }), /names 'lattice:gpt', which is not a catalog id/);
  assert.throws(() => chatConfigFromEnv({ LATTICE_CHAT_MODELS: '["x"]' }), /must be a JSON object/);
  const config = chatConfigFromEnv({ LATTICE_CHAT_MODELS: '{"lattice:code": "missing-model"}' });
  assert.throws(() => new SlotModels(new ModelRegistry(parseConfig({})), config), /chat slot lattice:code: model "missing-model" is not available for chat/);
});
