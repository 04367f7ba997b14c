/**
 * The console's spend chart, built on the server: one stacked bar per UTC day in an inline
 * SVG, one colour per key (CSS classes k0..k7, so the page's strict CSP needs no inline style).
 *
 * The y-axis labels are HTML text in a column beside the SVG, not SVG text: the SVG scales with
 * the page, so text inside it was clipped by a fixed margin when long ("$0.000375") and shrank
 * to a few pixels on a phone. The column is as wide as its longest label at the page's own font
 * size, and a CSS grid whose rows mirror the plot's margins puts each label on its grid line.
 * The axis always has four equal steps of 1, 2 or 5 times a power of ten, so labels are short;
 * under one dollar they read in cents ("0.04¢", "25¢").
 */
import { html, type SafeHtml } from '../../platform/http/pages.ts';

export interface DaySpend {
  date: string;
  /** Cost in dollars per key id. */
  byKey: Map<string, number>;
}

const W = 720;
const H = 220;
const SIDE = 6;
/** Plot margins in SVG units; console.css `.y-axis` grid rows repeat them (10, 4 × 46.5, 24). */
const BOTTOM = 24;
const TOP = 10;
export const STEPS = 4;

/** The axis step: 1, 2 or 5 times a power of ten, so that STEPS of them reach `max`. */
export function axisStep(max: number): number {
  // No spend yet: an axis to one dollar.
  if (!(max > 0)) return 0.25;
  const raw = max / STEPS;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5]) if (m * p >= raw * (1 - 1e-12)) return m * p;
  return 10 * p;
}

/** Fewest decimals (up to 12) that write `x` exactly enough. */
function decimals(x: number): number {
  for (let d = 0; d <= 12; d++) if (Math.abs(Math.round(x * 10 ** d) - x * 10 ** d) < 1e-6) return d;
  return 12;
}

/**
 * The labels of an axis from 0 to STEPS × step: dollars from one dollar up ("$0", "$2.50"),
 * cents below ("0¢", "25¢", "0.04¢"), each with the decimals the step needs and no more.
 */
export function axisLabels(step: number): string[] {
  const values = Array.from({ length: STEPS + 1 }, (_, i) => i * step);
  if (step * STEPS >= 1) {
    const d = decimals(step) === 0 ? 0 : 2;
    return values.map((v) => (v === 0 ? '$0' : `$${v.toFixed(d)}`));
  }
  const d = decimals(step * 100);
  return values.map((v) => (v === 0 ? '0¢' : `${(v * 100).toFixed(d)}¢`));
}

export function money(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(6).replace(/0+$/, '')}`;
  return `$${usd.toFixed(2)}`;
}

export function spendChart(days: DaySpend[], keyOrder: string[], keyNames: Map<string, string>): SafeHtml {
  const totals = days.map((d) => [...d.byKey.values()].reduce((a, b) => a + b, 0));
  const step = axisStep(Math.max(0, ...totals));
  const top = step * STEPS;
  const labels = axisLabels(step);
  const plotH = H - BOTTOM - TOP;
  const slot = (W - 2 * SIDE) / Math.max(1, days.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (usd: number): number => TOP + plotH - (usd / top) * plotH;
  const grid = labels.map((_, i) => {
    const at = y(step * i).toFixed(1);
    return html`<line class="grid" data-tick="${i}" x1="0" x2="${W}" y1="${at}" y2="${at}"></line>`;
  });
  const bars = days.map((d, i) => {
    let base = 0;
    const x = SIDE + i * slot + (slot - barW) / 2;
    const parts = keyOrder
      .filter((k) => (d.byKey.get(k) ?? 0) > 0)
      .map((k) => {
        const v = d.byKey.get(k)!;
        const y1 = y(base + v);
        const h = Math.max(1, y(base) - y1);
        base += v;
        return html`<rect class="k${keyOrder.indexOf(k) % 8}" x="${x.toFixed(1)}" y="${y1.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}"><title>${d.date} · ${keyNames.get(k) ?? k}: ${money(v)}</title></rect>`;
      });
    const label = i % 5 === days.length % 5 || i === days.length - 1 ? html`<text class="axis" x="${(x + barW / 2).toFixed(1)}" y="${H - 6}" text-anchor="middle">${d.date.slice(5)}</text>` : '';
    return html`${parts}${label}`;
  });
  // Highest first: the column's grid rows run from the top of the plot down.
  const yAxis = labels
    .map((text, i) => html`<span class="tick" data-tick="${i}">${text}</span>`)
    .reverse();
  const legend = keyOrder.map((k, i) => html`<li><span class="swatch k${i % 8}"></span>${keyNames.get(k) ?? k}</li>`);
  return html`<div class="chart-box"><div class="y-axis" aria-hidden="true">${yAxis}</div><svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="Spend per day and key, axis up to ${labels[STEPS]}">${grid}${bars}</svg></div>
<ul class="legend">${legend.length ? legend : html`<li class="muted">No spend in this period yet.</li>`}</ul>`;
}
