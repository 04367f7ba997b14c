import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rerankDocuments } from './adhoc.ts';
import { fidelityKernel, quantumReranker } from './quantum.ts';

test('the fidelity kernel is 1 for equal vectors and symmetric', () => {
  assert.ok(Math.abs(fidelityKernel([0.3, 0.7, 0.1], [0.3, 0.7, 0.1]) - 1) < 1e-12);
  const ab = fidelityKernel([0.2, 0.9, 0.4, 0.5], [0.6, 0.1, 0.4, 0.8]);
  const ba = fidelityKernel([0.6, 0.1, 0.4, 0.8], [0.2, 0.9, 0.4, 0.5]);
  assert.ok(Math.abs(ab - ba) < 1e-12);
  assert.ok(ab < 1);
});

test('on one qubit the simulated kernel equals cos²(π(a−b)/4)', () => {
  // Two RY(π/4·a) layers with no entangler: U(a) = RY(πa/2), so the overlap is cos²(π(a−b)/4).
  const a = 0.35;
  const b = 0.1;
  assert.ok(Math.abs(fidelityKernel([a], [b]) - Math.cos((Math.PI * (a - b)) / 4) ** 2) < 1e-12);
  assert.ok(Math.abs(fidelityKernel([1], [0]) - 0.5) < 1e-12);
});

test('the quantum tier reranks a document list and reports that it ran on the CPU', async () => {
  const reranker = quantumReranker({ device: 'gpu' });
  const docs = ['jet noise reduction', 'supersonic flow over a cone at incidence', 'flow over a cone'];
  const ranked = await rerankDocuments(reranker, 'supersonic cone flow incidence', docs);
  assert.equal(ranked[0].index, 1);
  assert.equal(reranker.lastRun?.device, 'cpu');
  assert.equal(reranker.lastRun?.requested, 'gpu');
  assert.ok((reranker.lastRun?.circuits ?? 0) > 0);
});
