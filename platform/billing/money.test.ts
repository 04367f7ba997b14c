import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BillingError, parseTopUpUsd, usdToMicros } from './money.ts';

test('a top-up amount is a positive number of dollars of at most six decimals and at most one million', () => {
  assert.equal(parseTopUpUsd('12.50'), 12.5);
  assert.equal(parseTopUpUsd(' 25 '), 25);
  assert.equal(parseTopUpUsd('0.000001'), 0.000001);
  assert.equal(parseTopUpUsd('1e3'), 1000);
  assert.equal(usdToMicros(parseTopUpUsd('0.1')), 100_000);
  const refused = (text: string, words: RegExp) =>
    assert.throws(() => parseTopUpUsd(text), (err: BillingError) => err.code === 'invalid_amount' && words.test(err.message));
  refused('0', /above zero/);
  refused('-3', /above zero/);
  refused('abc', /number of US dollars/);
  refused('', /number of US dollars/);
  refused('12,50', /number of US dollars/);
  refused('Infinity', /number of US dollars/);
  refused('NaN', /number of US dollars/);
  refused('1e9', /at most 1000000/);
  refused('1000000.01', /at most 1000000/);
  refused('0.0000001', /micro-dollars/);
  refused('1.0000005', /micro-dollars/);
});
