/**
 * A circuit as an SVG picture in the usual notation: one horizontal wire per qubit and a double
 * wire per classical register, gates as labelled boxes, controls as dots joined to their target
 * (⊕ for an X target), × for swaps, a meter box with a double line down to the classical bit for
 * a measurement, dashed bands for barriers. The picture keeps its natural size (width and height
 * in pixels) so a page shows a large circuit with horizontal scrolling instead of shrinking it.
 *
 * Only presentation attributes are used (no `style` attributes or `<style>` blocks), so the SVG
 * can be inlined in a page under a strict Content-Security-Policy. Every operation is one
 * `<g class="op gate|measure|reset|barrier">` with its name in `data-name` and a `<title>` shown
 * on hover; the root carries `data-qubits`, `data-gates` and `data-depth`.
 */
import type { Circuit } from '../circuit.ts';
import { counts } from '../optimizer/metrics.ts';
import { layoutCircuit, type Layout, type Part, type Placed } from './layout.ts';

const ROW = 40;
const BOX_H = 28;
const CHAR_W = 7.4;
const MIN_COL = 44;
const PAD_TOP = 20;
const PAD_RIGHT = 20;

const INK = '#1f2937';
const WIRE = '#6b7280';

export interface SvgOptions {
  /** Drawn at the top left (e.g. "before optimization"). */
  caption?: string;
}

function esc(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

/** Box fill by gate family, so structure stands out at a glance. */
function fill(p: Placed): string {
  if (p.kind === 'reset') return '#e5e7eb';
  const n = p.name;
  if (p.op.kind === 'unitary') return '#fde68a';
  if (['h', 'x', 'y', 'z', 's', 'sdg', 't', 'tdg', 'sx', 'sxdg', 'id'].includes(n)) return '#dbeafe';
  if (/^(c+|c\d)?(rx|ry|rz|p|u\d?|u|r|cp|crx|cry|crz|cu\d?)$/.test(n) || ['rxx', 'ryy', 'rzz', 'rzx', 'cp', 'cu1', 'cu3', 'cu'].includes(n)) return '#ede9fe';
  return '#ccfbf1';
}

function partLabelWidth(part: Part, p: Placed): number {
  if (part.kind === 'box') return (part.label.length + (p.condition && part.first === p.top ? 0 : 0)) * CHAR_W + 16;
  return 0;
}

export function circuitSvg(c: Circuit, options: SvgOptions = {}): string {
  const layout: Layout = layoutCircuit(c);
  const cnt = counts(c);
  // Column widths: wide enough for the longest label (or condition) in the column.
  const widths = new Array<number>(layout.columns).fill(MIN_COL);
  for (const p of layout.placed) {
    let w = MIN_COL;
    for (const part of p.parts) w = Math.max(w, partLabelWidth(part, p) + 12);
    if (p.condition) w = Math.max(w, p.condition.length * 6.2 + 12);
    widths[p.column] = Math.max(widths[p.column]!, w);
  }
  const labelW = Math.max(...layout.qubitLabels.map((l) => l.length), ...layout.cregs.map((r) => r.name.length + 4), 4) * CHAR_W + 16;
  const xs: number[] = [];
  let x = labelW + 10;
  for (const w of widths) {
    xs.push(x + w / 2);
    x += w;
  }
  const width = Math.ceil(x + PAD_RIGHT);
  const top = PAD_TOP + (options.caption ? 16 : 0);
  const qy = (q: number) => top + ROW / 2 + q * ROW;
  const cy = (r: number) => top + ROW / 2 + (layout.numQubits + r) * ROW;
  const height = Math.ceil(top + (layout.numQubits + layout.cregs.length) * ROW + 14);

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="circuit" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" ` +
      `aria-label="Circuit diagram: ${layout.numQubits} qubits, ${cnt.gates} gates, depth ${cnt.depth}" ` +
      `data-qubits="${layout.numQubits}" data-gates="${cnt.gates}" data-depth="${cnt.depth}" font-family="ui-monospace, Menlo, Consolas, monospace" font-size="13">`,
  );
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  if (options.caption) out.push(`<text x="8" y="16" fill="${WIRE}" font-size="12">${esc(options.caption)}</text>`);
  // Wires and their labels.
  const wireEnd = width - PAD_RIGHT + 8;
  out.push('<g class="wires">');
  layout.qubitLabels.forEach((l, q) => {
    out.push(`<text x="${labelW}" y="${qy(q) + 4}" text-anchor="end" fill="${INK}">${esc(l)}</text>`);
    out.push(`<line x1="${labelW + 6}" y1="${qy(q)}" x2="${wireEnd}" y2="${qy(q)}" stroke="${WIRE}" stroke-width="1"/>`);
  });
  layout.cregs.forEach((r, i) => {
    const y = cy(i);
    out.push(`<text x="${labelW}" y="${y + 4}" text-anchor="end" fill="${INK}">${esc(r.name)}: ${r.size}</text>`);
    out.push(`<line x1="${labelW + 6}" y1="${y - 1.5}" x2="${wireEnd}" y2="${y - 1.5}" stroke="${WIRE}"/>`);
    out.push(`<line x1="${labelW + 6}" y1="${y + 1.5}" x2="${wireEnd}" y2="${y + 1.5}" stroke="${WIRE}"/>`);
  });
  out.push('</g>');

  for (const p of layout.placed) {
    const cx = xs[p.column]!;
    const w = widths[p.column]! - 12;
    const g: string[] = [];
    g.push(`<g class="op ${p.kind}" data-name="${esc(p.name)}" data-index="${p.index}"><title>${esc(p.title)}</title>`);
    if (p.kind === 'barrier') {
      const part = p.parts[0] as Extract<Part, { kind: 'barrier' }>;
      const y1 = qy(part.first) - ROW / 2 + 4;
      const y2 = qy(part.last) + ROW / 2 - 4;
      g.push(`<rect x="${cx - 8}" y="${y1}" width="16" height="${y2 - y1}" fill="#e5e7eb" fill-opacity="0.7"/>`);
      g.push(`<line x1="${cx}" y1="${y1}" x2="${cx}" y2="${y2}" stroke="${WIRE}" stroke-dasharray="4 3"/>`);
    } else if (p.kind === 'measure') {
      const part = p.parts[0] as Extract<Part, { kind: 'measure' }>;
      const y = qy(part.qubit);
      const yc = cy(part.creg);
      g.push(`<line x1="${cx - 1.5}" y1="${y + BOX_H / 2}" x2="${cx - 1.5}" y2="${yc - 6}" stroke="${WIRE}"/>`);
      g.push(`<line x1="${cx + 1.5}" y1="${y + BOX_H / 2}" x2="${cx + 1.5}" y2="${yc - 6}" stroke="${WIRE}"/>`);
      g.push(`<path d="M ${cx - 5} ${yc - 10} L ${cx} ${yc - 2} L ${cx + 5} ${yc - 10} Z" fill="${WIRE}"/>`);
      g.push(`<text x="${cx + 8}" y="${yc + 14}" font-size="10" fill="${WIRE}">${part.bit}</text>`);
      g.push(`<rect x="${cx - 15}" y="${y - BOX_H / 2}" width="30" height="${BOX_H}" rx="3" fill="#f3f4f6" stroke="${INK}"/>`);
      g.push(`<path d="M ${cx - 9} ${y + 6} A 9 9 0 0 1 ${cx + 9} ${y + 6}" fill="none" stroke="${INK}"/>`);
      g.push(`<line x1="${cx}" y1="${y + 6}" x2="${cx + 7}" y2="${y - 8}" stroke="${INK}"/>`);
    } else {
      // The vertical line joining controls, targets and multi-qubit boxes.
      if (p.bottom > p.top && p.parts.some((pt) => pt.kind !== 'box')) {
        g.push(`<line x1="${cx}" y1="${qy(p.top)}" x2="${cx}" y2="${qy(p.bottom)}" stroke="${INK}" stroke-width="1.5"/>`);
      }
      for (const part of p.parts) {
        if (part.kind === 'control') g.push(`<circle cx="${cx}" cy="${qy(part.qubit)}" r="5" fill="${INK}"/>`);
        else if (part.kind === 'plus') {
          const y = qy(part.qubit);
          g.push(`<circle cx="${cx}" cy="${y}" r="11" fill="#ffffff" stroke="${INK}" stroke-width="1.5"/>`);
          g.push(`<line x1="${cx - 11}" y1="${y}" x2="${cx + 11}" y2="${y}" stroke="${INK}" stroke-width="1.5"/>`);
          g.push(`<line x1="${cx}" y1="${y - 11}" x2="${cx}" y2="${y + 11}" stroke="${INK}" stroke-width="1.5"/>`);
        } else if (part.kind === 'swap') {
          const y = qy(part.qubit);
          g.push(`<path d="M ${cx - 7} ${y - 7} L ${cx + 7} ${y + 7} M ${cx - 7} ${y + 7} L ${cx + 7} ${y - 7}" stroke="${INK}" stroke-width="2"/>`);
        } else if (part.kind === 'box') {
          const y1 = qy(part.first) - BOX_H / 2;
          const y2 = qy(part.last) + BOX_H / 2;
          const bw = Math.max(30, part.label.length * CHAR_W + 16);
          g.push(`<rect x="${cx - bw / 2}" y="${y1}" width="${Math.min(bw, w + 8)}" height="${y2 - y1}" rx="3" fill="${fill(p)}" stroke="${INK}"/>`);
          g.push(`<text x="${cx}" y="${(y1 + y2) / 2 + 4.5}" text-anchor="middle" fill="${INK}">${esc(part.label)}</text>`);
          // Which wires a box spanning others acts on, when it skips some.
          if (part.last > part.first && part.qubits.length < part.last - part.first + 1) {
            for (const q of part.qubits) g.push(`<circle cx="${cx - bw / 2 + 4}" cy="${qy(q)}" r="2.5" fill="${INK}"/>`);
          }
        }
      }
      if (p.condition) g.push(`<text x="${cx}" y="${qy(p.bottom) + ROW / 2 + 1}" text-anchor="middle" font-size="10" fill="#b45309">${esc(p.condition)}</text>`);
    }
    g.push('</g>');
    out.push(g.join(''));
  }
  out.push('</svg>');
  return out.join('\n');
}
