import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashEmbed } from '../../engines/language/embed/hashing.ts';
import { embeddingsBody, embeddingsJson, type EmbeddingsReply } from './embeddings-json.ts';

/** What the route sent before it wrote the bytes itself. */
const reference = (r: EmbeddingsReply, encoding: 'float' | 'base64'): Buffer => Buffer.from(JSON.stringify(embeddingsBody(r, encoding)));

function same(r: EmbeddingsReply): void {
  for (const encoding of ['float', 'base64'] as const) assert.ok(embeddingsJson(r, encoding).equals(reference(r, encoding)), encoding);
}

const usage = { prompt_tokens: 7, total_tokens: 7 };

test('classic vectors: the bytes JSON.stringify gave, float and base64', () => {
  const texts = ['laminar boundary layer on a flat plate', 'shock', '', 'heat transfer heat transfer heat transfer in a nozzle'];
  same({ data: hashEmbed(texts).map((v) => Array.from(v)), model: 'classic-embed', usage });
});

test('numbers JSON writes in other forms: -0, exponents, the smallest and largest, integers, non-finite', () => {
  const odd = [0, -0, 1, -1, 0.1, -0.30000000000000004, 1e-7, 1.5e-10, 123456789012, 1e21, -1e21, 5e-324, Number.MAX_VALUE, NaN, Infinity, -Infinity, 2 ** 53 + 2, Math.fround(0.1)];
  same({ data: [odd, odd.slice().reverse()], model: 'm', usage });
});

test('a provider that sends other things than numbers still gets JSON.stringify’s rendering', () => {
  const weird = [1, null, 'x"é\u2028', true, undefined, { a: [1] }] as unknown as number[];
  assert.ok(embeddingsJson({ data: [weird], model: 'm', usage }, 'float').equals(reference({ data: [weird], model: 'm', usage }, 'float')));
  const notList = { data: [{ 0: 1 } as unknown as number[]], model: 'm', usage };
  assert.ok(embeddingsJson(notList, 'float').equals(reference(notList, 'float')));
});

test('a model name with quotes and characters beyond ASCII is escaped and UTF-8 encoded', () => {
  same({ data: [[0.5, 0.25]], model: 'modèle "ü" \u{1F600} \\ \n', usage });
});

test('dense vectors, each number distinct, past the numbers remembered per vector', () => {
  const long = Array.from({ length: 5000 }, (_, i) => (i % 7) / 3 - 1 + i * 1e-9);
  same({ data: [[0.1], long, long.map((x) => -x)], model: 'm', usage });
});

test('a reply larger than the scratch buffer grows it, and a reply keeps its bytes when the next one is written', () => {
  const big = { data: Array.from({ length: 60 }, (_, k) => Array.from({ length: 1536 }, (_, i) => Math.sin(k * 1536 + i) / 7)), model: 'm', usage };
  const first = embeddingsJson(big, 'float');
  assert.ok(first.length > 1 << 20, `${first.length} bytes`);
  assert.ok(first.equals(reference(big, 'float')));
  const small = { data: [[0.5, -0.5]], model: 'm', usage };
  const second = embeddingsJson(small, 'float');
  assert.ok(second.equals(reference(small, 'float')));
  assert.ok(first.equals(reference(big, 'float')), 'the first reply is unchanged');
});

test('no vectors at all', () => {
  same({ data: [], model: 'm', usage });
});
