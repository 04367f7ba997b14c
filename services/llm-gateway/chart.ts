/**
 * The console's spend chart as inline SVG, built on the server: one stacked bar per UTC day,
 * one colour per key (CSS classes k0..k7, so the page's strict CSP needs no inline style).
 */
import { html, type SafeHtml } from '../../platform/http/pages.ts';

export interface DaySpend {
  date: string;
  /** Cost in dollars per key id. */
  byKey: Map<string, number>;
}

const W = 720;
const H = 220;
const LEFT = 56;
const RIGHT = 18;
const BOTTOM = 24;
const TOP = 10;

/** A round axis maximum above `max` (1, 2 or 5 times a power of ten). */
export function niceMax(max: number): number {
  if (max <= 0) return 0.01;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

export function money(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(6).replace(/0+$/, '')}`;
  return `$${usd.toFixed(2)}`;
}

export function spendChart(days: DaySpend[], keyOrder: string[], keyNames: Map<string, string>): SafeHtml {
  const totals = days.map((d) => [...d.byKey.values()].reduce((a, b) => a + b, 0));
  const top = niceMax(Math.max(0, ...totals));
  const plotH = H - BOTTOM - TOP;
  const slot = (W - LEFT - RIGHT) / Math.max(1, days.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (usd: number): number => TOP + plotH - (usd / top) * plotH;
  const grid = [0, 0.25, 0.5, 0.75, 1].map(
    (f) => html`<line class="grid" x1="${LEFT}" x2="${W}" y1="${y(top * f).toFixed(1)}" y2="${y(top * f).toFixed(1)}"></line><text class="axis" x="${LEFT - 6}" y="${(y(top * f) + 4).toFixed(1)}" text-anchor="end">${money(top * f)}</text>`,
  );
  const bars = days.map((d, i) => {
    let base = 0;
    const x = LEFT + i * slot + (slot - barW) / 2;
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
  const legend = keyOrder.map((k, i) => html`<li><span class="swatch k${i % 8}"></span>${keyNames.get(k) ?? k}</li>`);
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="Spend per day and key">${grid}${bars}</svg>
<ul class="legend">${legend.length ? legend : html`<li class="muted">No spend in this period yet.</li>`}</ul>`;
}
