/**
 * Where the sky plot writes each satellite's name: beside its dot, in the first of a few places
 * around it that overlaps no name already placed, no other satellite's dot and nothing outside
 * the plot; when every place is taken, the one that overlaps least. Satellites close together on
 * the sky (seen: E11 and G28) so get names that do not cover each other.
 */

export interface SkyDot {
  x: number;
  y: number;
  text: string;
}

export interface PlacedLabel {
  /** The text's anchor point, as SVG's `x`, `y` and `text-anchor` take it. */
  x: number;
  y: number;
  anchor: 'start' | 'middle' | 'end';
  /** The box the text covers (top-left corner, size), as estimated from its length. */
  box: Box;
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The label font's size (services/nav/web/nav.css `svg text.label`) and the width of one of its characters, generously. */
const FONT_PX = 9;
const CHAR_PX = 6;
/** Room kept around each dot (its radius, with the ring of a flagged satellite). */
export const DOT_RADIUS = 12;

/** Offsets of the text's anchor from the dot, in the order tried: above, below, right, left, then the diagonals. */
const PLACES: ReadonlyArray<{ dx: number; dy: number; anchor: PlacedLabel['anchor'] }> = [
  { dx: 0, dy: -13, anchor: 'middle' },
  { dx: 0, dy: 20, anchor: 'middle' },
  { dx: 13, dy: 3, anchor: 'start' },
  { dx: -13, dy: 3, anchor: 'end' },
  { dx: 9, dy: -10, anchor: 'start' },
  { dx: -9, dy: -10, anchor: 'end' },
  { dx: 9, dy: 17, anchor: 'start' },
  { dx: -9, dy: 17, anchor: 'end' },
];

function boxAt(x: number, y: number, anchor: PlacedLabel['anchor'], text: string): Box {
  const w = text.length * CHAR_PX;
  const left = anchor === 'start' ? x : anchor === 'end' ? x - w : x - w / 2;
  // The text sits on its baseline: the box reaches one font size above it and a little below.
  return { x: left, y: y - FONT_PX, w, h: FONT_PX + 2 };
}

function overlap(a: Box, b: Box): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/** The part of `b` a dot covers, taken as the dot's bounding square. */
function dotOverlap(d: SkyDot, b: Box): number {
  return overlap({ x: d.x - DOT_RADIUS, y: d.y - DOT_RADIUS, w: 2 * DOT_RADIUS, h: 2 * DOT_RADIUS }, b);
}

/** The part of `b` outside the plot's `size` x `size` square. */
function outside(b: Box, size: number): number {
  return b.w * b.h - overlap(b, { x: 0, y: 0, w: size, h: size });
}

/** The plot's compass letters (N, E, S, W in skyPlot), which names keep clear of too. */
export const COMPASS: readonly Box[] = [
  { x: 144, y: 2, w: 12, h: 14 },
  { x: 282, y: 142, w: 10, h: 14 },
  { x: 144, y: 285, w: 12, h: 14 },
  { x: 8, y: 142, w: 10, h: 14 },
];

/**
 * One label per dot, in the dots' order, keeping clear of `fixed` boxes too. Dots are placed
 * from the top of the plot down, so the same sky always gives the same labels.
 */
export function placeLabels(dots: readonly SkyDot[], size = 300, fixed: readonly Box[] = []): PlacedLabel[] {
  const placed: Array<PlacedLabel | undefined> = new Array(dots.length);
  const taken: Box[] = [...fixed];
  const order = dots.map((d, i) => ({ d, i })).sort((a, b) => a.d.y - b.d.y || a.d.x - b.d.x || a.i - b.i);
  for (const { d, i } of order) {
    let best: { label: PlacedLabel; cost: number } | null = null;
    for (const p of PLACES) {
      const x = Math.round((d.x + p.dx) * 10) / 10;
      const y = Math.round((d.y + p.dy) * 10) / 10;
      const box = boxAt(x, y, p.anchor, d.text);
      let cost = outside(box, size) * 4;
      for (const t of taken) cost += overlap(t, box) * 4;
      for (const o of dots) if (o !== d) cost += dotOverlap(o, box);
      if (!best || cost < best.cost) best = { label: { x, y, anchor: p.anchor, box }, cost };
      if (cost === 0) break;
    }
    placed[i] = best!.label;
    taken.push(best!.label.box);
  }
  return placed as PlacedLabel[];
}

/** Whether two placed labels cover each other (for tests and checks). */
export function labelsOverlap(a: PlacedLabel, b: PlacedLabel): boolean {
  return overlap(a.box, b.box) > 0;
}
