import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mcvMinEntropy, measureEntropy, monobitP, runsP, sampleQuantum } from './entropy.ts';

// The 100-bit sequence of NIST SP 800-22's worked examples (sections 2.1.8 and 2.3.8).
const NIST_EXAMPLE = '1100100100001111110110101010001000100001011010001100001000110100110001001100011001100010100010111000';
const bitsOf = (s: string) => Uint8Array.from(s, (c) => (c === '1' ? 1 : 0));

test("the frequency and runs tests give SP 800-22's published p-values on its example", () => {
  assert.ok(Math.abs(monobitP(bitsOf(NIST_EXAMPLE)) - 0.109599) < 1e-6);
  assert.ok(Math.abs(runsP(bitsOf(NIST_EXAMPLE)) - 0.500798) < 1e-6);
});

test('the most-common-value estimate bounds the most frequent symbol from above', () => {
  // 1000 symbols, one of them 100 times: p = 0.1, upper bound 0.1 + 2.576 sqrt(0.09 / 999).
  const symbols = new Uint32Array(1000).map((_, i) => (i < 100 ? 7 : 8 + i));
  assert.ok(Math.abs(mcvMinEntropy(symbols, 16) - -Math.log2(0.1 + 2.576 * Math.sqrt(0.09 / 999))) < 1e-12);
  assert.equal(mcvMinEntropy(new Uint32Array(10).fill(3), 8), -0);
});

const byteStrings = (bytes: number[]) => bytes.map((b) => b.toString(2).padStart(8, '0'));
const counter = (n: number) => byteStrings(Array.from({ length: n }, (_, i) => (i * 37 + 11) & 255));

test('a sampler that fails a test scores 0 after a second sample confirms it', () => {
  let calls = 0;
  const biased = () => (calls++, byteStrings(Array.from({ length: 8192 }, (_, i) => (i % 4 ? 255 : 0))));
  const m = measureEntropy(new Date(0), biased);
  assert.equal(calls, 2);
  assert.equal(m.quality, 0);
  assert.ok(m.monobit_p < 0.01);
  assert.ok(m.min_entropy_per_bit > 0, 'the estimate is reported even when the quality is 0');
});

test("one failed sample is not a verdict: the second sample decides, and its figures are the ones reported", () => {
  const samples = [byteStrings(new Array(8192).fill(255)), counter(8192)];
  const m = measureEntropy(new Date(0), () => samples.shift() ?? []);
  assert.equal(samples.length, 0);
  assert.equal(m.runs_p >= 0.01 && m.monobit_p >= 0.01, true, JSON.stringify(m));
  assert.equal(m.quality, m.min_entropy_per_bit);
  assert.equal(m.measured_at, new Date(0).toISOString());
});

test('a passing first sample is not sampled again', () => {
  let calls = 0;
  const m = measureEntropy(new Date(0), () => (calls++, counter(8192)));
  assert.equal(calls, 1);
  assert.ok(m.quality > 0.9, JSON.stringify(m)); // every byte equally often: the bound alone keeps it under 1
});

test("the engine's sampler gives 8192 shots of 8 bits and close to a bit of min-entropy per bit", () => {
  const shots = sampleQuantum();
  assert.equal(shots.length, 8192);
  assert.ok(shots.every((s) => /^[01]{8}$/.test(s)));
  const m = measureEntropy(new Date(0));
  assert.equal(m.bits, 65536);
  // Sampling noise of 8192 bytes keeps the MCV estimate of an ideal source near 0.9; below 0.8
  // needs one byte value about three times as often as the others, which an ideal source does not do.
  assert.ok(m.min_entropy_per_bit > 0.8 && m.min_entropy_per_bit <= 1, JSON.stringify(m));
  assert.ok(m.quality === 0 || m.quality === m.min_entropy_per_bit, JSON.stringify(m));
});
