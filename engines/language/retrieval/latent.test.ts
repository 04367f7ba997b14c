import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitLatent, latentScores, symmetricEigen } from './latent.ts';

const docs = [
  'lift airfoil wing lift',
  'airfoil wing camber',
  'wing lift camber airfoil',
  'heat temperature conduction',
  'temperature heat wall',
  'conduction wall heat temperature',
  'airfoil stall wing',
  'heat wall insulation',
].map((text, i) => {
  const terms = new Map<string, number>();
  for (const t of text.split(' ')) terms.set(t, (terms.get(t) ?? 0) + 1);
  return { doc_id: `d${i}`, terms };
});

test('the Jacobi eigen-decomposition reproduces a symmetric matrix', () => {
  const a = [Float64Array.from([4, 1, 2]), Float64Array.from([1, 3, 0]), Float64Array.from([2, 0, 5])];
  const { values, vectors } = symmetricEigen(a);
  assert.ok(values[0] >= values[1] && values[1] >= values[2]);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const back = values.reduce((s, l, k) => s + l * vectors[k][i] * vectors[k][j], 0);
      assert.ok(Math.abs(back - a[i][j]) < 1e-9, `entry ${i},${j}`);
    }
  }
});

test('the latent space ranks a document that shares no word with the query but shares its topic', () => {
  const model = fitLatent(docs, 2);
  assert.ok(model);
  // "stall" appears once (left out of the space); "camber" co-occurs with airfoil and wing only.
  const scores = latentScores(model, new Map([['camber', 1]]));
  const ranked = [...scores].sort((a, b) => b[1] - a[1]).map(([id]) => id);
  // d6 ("airfoil stall wing") has no "camber", yet it ranks above every heat-transfer document.
  assert.ok(ranked.indexOf('d6') < ranked.indexOf('d3'));
  assert.ok(ranked.indexOf('d6') < ranked.indexOf('d7'));
  assert.ok((scores.get('d6') ?? 0) > 0.5);
  assert.ok(Math.abs(scores.get('d4') ?? 0) < 0.2);
});

test('the fit is deterministic, and a query with no known term scores nothing', () => {
  const a = fitLatent(docs, 2);
  const b = fitLatent(docs, 2);
  assert.deepEqual([...latentScores(a!, new Map([['heat', 1]]))], [...latentScores(b!, new Map([['heat', 1]]))]);
  assert.equal(latentScores(a!, new Map([['unseen', 1]])).size, 0);
  assert.equal(fitLatent(docs.slice(0, 1)), null);
});
