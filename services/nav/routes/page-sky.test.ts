// The sky plot's satellite names: placed where they cover no other name, no other dot and stay inside the plot.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMPASS, labelsOverlap, placeLabels, type SkyDot } from './page-sky.ts';

const inside = (l: ReturnType<typeof placeLabels>[number], size = 300) => l.box.x >= 0 && l.box.y >= 0 && l.box.x + l.box.w <= size && l.box.y + l.box.h <= size;

test('two satellites close together (E11 and G28) get names that do not overlap', () => {
  // 8 px apart on the plot: both names above their dots would cover each other.
  const dots: SkyDot[] = [{ x: 150, y: 100, text: 'E11' }, { x: 158, y: 104, text: 'G28' }];
  const [a, b] = placeLabels(dots);
  assert.ok(a && b);
  assert.equal(labelsOverlap(a, b), false, JSON.stringify([a, b]));
  assert.ok(inside(a) && inside(b));
  // The naive placement, each name above its own dot, is what overlapped.
  const naive = placeLabels([dots[0]!]).concat(placeLabels([dots[1]!]));
  assert.equal(labelsOverlap(naive[0]!, naive[1]!), true);
});

test('a lone satellite keeps its name above its dot; one at the top edge gets it below', () => {
  assert.deepEqual(placeLabels([{ x: 150, y: 150, text: 'G05' }]).map((l) => [l.x, l.y, l.anchor]), [[150, 137, 'middle']]);
  const [top] = placeLabels([{ x: 150, y: 15, text: 'R07' }]);
  assert.ok(top!.y > 15, JSON.stringify(top));
  assert.ok(inside(top!));
  // Beside the compass letter N, the name keeps clear of it.
  const [north] = placeLabels([{ x: 150, y: 30, text: 'G09' }], 300, COMPASS);
  assert.ok(COMPASS.every((c) => !labelsOverlap(north!, { ...north!, box: c })), JSON.stringify(north));
});

test('a crowded patch: no two names overlap, none leaves the plot, and the result is the same for the same sky', () => {
  const dots: SkyDot[] = [];
  for (let i = 0; i < 6; i++) dots.push({ x: 120 + (i % 3) * 22, y: 120 + Math.floor(i / 3) * 26, text: ['G01', 'G12', 'E05', 'C30', 'R17', 'J02'][i]! });
  const labels = placeLabels(dots);
  for (let i = 0; i < labels.length; i++) {
    assert.ok(inside(labels[i]!), JSON.stringify(labels[i]));
    for (let j = i + 1; j < labels.length; j++) assert.equal(labelsOverlap(labels[i]!, labels[j]!), false, `${dots[i]!.text} / ${dots[j]!.text}`);
  }
  assert.deepEqual(placeLabels(dots), labels);
});
