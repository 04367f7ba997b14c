import assert from 'node:assert/strict';
import { test } from 'node:test';
import { axisLabels, axisStep, spendChart } from './chart.ts';

test('the y axis reads naturally at any amount: four short steps, cents under a dollar', () => {
  const labels = (max: number) => axisLabels(axisStep(max));
  // The amount: "$0.000375" used to be clipped to "i0.000375".
  assert.deepEqual(labels(0.000375), ['0¢', '0.01¢', '0.02¢', '0.03¢', '0.04¢']);
  assert.deepEqual(labels(0.3), ['0¢', '10¢', '20¢', '30¢', '40¢']);
  assert.deepEqual(labels(0.9), ['$0', '$0.50', '$1.00', '$1.50', '$2.00']);
  assert.deepEqual(labels(37), ['$0', '$10', '$20', '$30', '$40']);
  assert.deepEqual(labels(0), ['$0', '$0.25', '$0.50', '$0.75', '$1.00']);
  for (const max of [1e-7, 3.3e-5, 0.0042, 0.07, 1, 12.5, 9999]) {
    const step = axisStep(max);
    assert.ok(step * 4 >= max && step * 4 < max * 10, `${max}: axis to ${step * 4}`);
    assert.ok(labels(max).every((l) => l.length <= 12), labels(max).join(' '));
  }
});

test('the chart puts one grid line and one label per step, highest label first', () => {
  const days = [{ date: '2026-01-01', byKey: new Map([['k', 0.000375]]) }];
  const out = String(spendChart(days, ['k'], new Map([['k', 'a key']])));
  assert.equal((out.match(/<line class="grid"/g) ?? []).length, 5);
  const ticks = [...out.matchAll(/<span class="tick" data-tick="(\d)">([^<]*)<\/span>/g)].map((m) => [m[1], m[2]]);
  assert.deepEqual(ticks, [['4', '0.04¢'], ['3', '0.03¢'], ['2', '0.02¢'], ['1', '0.01¢'], ['0', '0¢']]);
});
