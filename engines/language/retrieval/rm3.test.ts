import assert from 'node:assert/strict';
import { test } from 'node:test';
import { relevanceModel, rm3Expand } from './rm3.ts';

const doc = (text: string, score: number) => {
  const terms = new Map<string, number>();
  for (const t of text.split(' ')) terms.set(t, (terms.get(t) ?? 0) + 1);
  return { terms, length: text.split(' ').length, score };
};

test('RM3 keeps the query terms at originalWeight and adds the feedback documents\' strongest terms', () => {
  const query = new Map([['flutter', 1], ['panel', 1]]);
  const feedback = [doc('panel flutter supersonic panel damping', 2), doc('flutter supersonic skin', 1)];
  const expanded = rm3Expand(query, feedback, { docs: 2, terms: 3, originalWeight: 0.6 });
  // Relevance model: P(t|D) weighted by score. panel 2·2/5 = 0.8, flutter 2/5 + 1/3, supersonic 2/5 + 1/3,
  // damping 2/5, skin 1/3: the three heaviest are panel, flutter and supersonic (both 0.733).
  const model = relevanceModel(feedback, 3);
  assert.deepEqual([...model.keys()].sort(), ['flutter', 'panel', 'supersonic']);
  const total = 0.8 + 2 * (0.4 + 1 / 3);
  assert.ok(Math.abs((expanded.get('supersonic') ?? 0) - 0.4 * ((0.4 + 1 / 3) / total)) < 1e-12);
  assert.ok(Math.abs((expanded.get('panel') ?? 0) - (0.6 * 0.5 + 0.4 * (0.8 / total))) < 1e-12);
  assert.equal(expanded.has('damping'), false, 'only the `terms` heaviest terms are added');
  const sum = [...expanded.values()].reduce((s, x) => s + x, 0);
  assert.ok(Math.abs(sum - 1) < 1e-12, 'the expanded query is a distribution');
});

test('RM3 looks at the first `docs` feedback documents only, and a higher-scored document counts more', () => {
  const query = new Map([['inlet', 1]]);
  const feedback = [doc('inlet shock', 3), doc('inlet diffuser', 1), doc('inlet nozzle', 5)];
  const expanded = rm3Expand(query, feedback, { docs: 2, terms: 3, originalWeight: 0.5 });
  assert.equal(expanded.has('nozzle'), false);
  assert.ok((expanded.get('shock') ?? 0) > (expanded.get('diffuser') ?? 0));
});

test('with no feedback the query is unchanged, and a bad weight is refused', () => {
  const query = new Map([['wing', 2], ['lift', 2]]);
  assert.deepEqual(rm3Expand(query, []), new Map([['wing', 0.5], ['lift', 0.5]]));
  assert.throws(() => rm3Expand(query, [], { docs: 5, terms: 5, originalWeight: 1.5 }), /originalWeight/);
});
