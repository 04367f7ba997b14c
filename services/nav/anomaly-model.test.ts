/** The stored fit of the default anomaly model is the model training gives now, and the receiver starts with it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultAnomalyModel } from '../../engines/gnss/simulator/training.ts';
import { anomalyModelFor } from './anomaly-model.ts';
import { STORED_FIT, STORED_FIT_EPOCHS } from './anomaly-model-fit.ts';
import { DEFAULT_SETTINGS } from './settings.ts';

/** Equal up to the last bits a different build of the maths library may change. */
function close(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)), `${what}: stored ${expected}, trained now ${actual}`);
}

test('the stored fit is what training on the default epochs gives now (else: node --import tsx services/nav/anomaly-model.ts)', () => {
  assert.equal(STORED_FIT_EPOCHS, DEFAULT_SETTINGS.anomalyEpochs, 'the stored fit is of the default count of epochs');
  const trained = defaultAnomalyModel(STORED_FIT_EPOCHS);
  assert.equal(trained.samples, STORED_FIT.samples);
  close(trained.threshold, STORED_FIT.threshold, 'threshold');
  trained.mean.forEach((m, k) => close(m, STORED_FIT.mean[k]!, `mean[${k}]`));
  trained.precision.forEach((row, a) => row.forEach((p, b) => close(p, STORED_FIT.precision[a]![b]!, `precision[${a}][${b}]`)));
});

test('the default count of epochs starts from the stored fit, a copy that a receiver cannot change for the next', () => {
  const a = anomalyModelFor(STORED_FIT_EPOCHS);
  assert.deepEqual(a, STORED_FIT);
  a.mean[0] = 42;
  assert.notEqual(anomalyModelFor(STORED_FIT_EPOCHS).mean[0], 42);
});
