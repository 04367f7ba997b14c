/**
 * GET / — the live positioning page, rendered on the server: the sky plot (every tracked
 * satellite by azimuth and elevation, its constellation, C/N0 and part in the fix), the position
 * (a scatter of the last ten minutes in local east/north metres around their mean, the current
 * 95 % accuracy ellipse, latitude/longitude/height, speed, heading, fix age), time (UTC, GPS
 * time, clock bias and drift, GNSS or holdover with the error bound growing while holding over)
 * and integrity (status, each check with its score and threshold, the event history as a
 * timeline). Console users (`lattice console-users create`) sign in with email and password.
 *
 * Live: web/nav.js opens an EventSource on GET /console/events (page-events.ts), and the server
 * pushes the panels it rendered from the receiver's solution at each new epoch (and once a
 * second while no epoch comes, so that a holdover bound keeps growing on screen). A follower
 * process streams the leader's events through (follower.ts). GET /console/panels answers the
 * same panels once, and GET /console/state the same data as JSON.
 */
import { fileURLToPath } from 'node:url';
import { gpsToIso, gpsToUnixMs, gpsWeekTow } from '../../../engines/gnss/time.ts';
import { holdoverReport } from '../../../engines/gnss/report.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { consoleSignInView, html, raw, type SafeHtml, sendPage, serveAssets } from '../../../platform/http/pages.ts';
import { ConsoleSessions, registerConsoleSignIn, type ConsoleSession } from '../../../platform/http/session.ts';
import { navError } from '../errors.ts';
import type { NavReceiver } from '../receiver.ts';
import type { SkySatellite } from '../sky.ts';
import type { Solution } from '../solution.ts';
import { currentTiming } from '../timing.ts';
import type { NavDeps } from './context.ts';
import { registerPageEvents } from './page-events.ts';
import { COMPASS, placeLabels } from './page-sky.ts';

/** Seconds of receiver time the position scatter covers. */
export const TRACK_WINDOW_S = 600;
/** Scale from one-sigma east/north to the 95 % ellipse of a 2-D normal (sqrt of chi-square(2) at 0.95). */
const K95 = 2.4477;
const EARTH_R = 6_378_137;
const r = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

interface TrackPoint {
  gps: number;
  lat: number;
  lon: number;
  alt: number;
}

/**
 * The fixes of the last ten minutes of receiver time. Filled by following the receiver epoch by
 * epoch (the receiver itself keeps only its last 120 solutions); emptied when a new receiver
 * starts (leadership regained) or a replayed log starts again from its beginning.
 */
class Track {
  points: TrackPoint[] = [];
  /** Called after each new epoch, or after a second without one. */
  readonly ticks = new Set<() => void>();
  private lastSeq = 0;
  private receiver?: NavReceiver;
  private closed = false;

  follow(deps: NavDeps): void {
    const loop = async () => {
      while (!this.closed) {
        if (deps.receiver !== this.receiver) {
          this.receiver = deps.receiver;
          this.points = [];
          this.lastSeq = 0;
        }
        const s = await this.receiver.nextSolution(this.lastSeq, 1000);
        if (this.closed) break;
        if (s) {
          for (const x of this.receiver.recent) if (x.seq > this.lastSeq) this.add(x);
          if (s.seq > this.lastSeq) this.add(s);
        }
        for (const tick of this.ticks) tick();
      }
    };
    void loop();
  }

  stop(): void {
    this.closed = true;
  }

  private add(s: Solution): void {
    this.lastSeq = s.seq;
    const last = this.points.at(-1);
    if (last && s.gpsTime < last.gps - 1) this.points = [];
    if (s.position) this.points.push({ gps: s.gpsTime, lat: s.position.latitude, lon: s.position.longitude, alt: s.position.altitude });
    const from = s.gpsTime - TRACK_WINDOW_S;
    let drop = 0;
    while (drop < this.points.length && this.points[drop]!.gps < from) drop++;
    if (drop) this.points.splice(0, drop);
  }
}

interface HistoryEvent {
  event_id: string;
  start: string;
  end: string | null;
  status: string;
  threat_type: string;
  checks: string[];
}

/** Everything the page shows, read from the receiver and the event history. */
export async function pageState(deps: NavDeps, track: TrackPoint[]) {
  const receiver = deps.receiver;
  const s = receiver.latest;
  const engine = receiver.gnssEngine;
  const nowGps = receiver.nowGps();
  const a = s?.assessment;
  const timing = currentTiming(receiver, { includeBounds: true });
  const hold = engine ? holdoverReport(engine, nowGps) : null;
  const { week, tow } = gpsWeekTow(nowGps);

  // Scatter: east/north metres around the mean of the window (a local tangent plane; the window spans metres).
  let scatter: { mean: { latitude: number; longitude: number; height: number } | null; points: Array<{ east_m: number; north_m: number; age_s: number }> } = { mean: null, points: [] };
  if (track.length) {
    const lat0 = track.reduce((x, p) => x + p.lat, 0) / track.length;
    const lon0 = track.reduce((x, p) => x + p.lon, 0) / track.length;
    const h0 = track.reduce((x, p) => x + p.alt, 0) / track.length;
    const rad = Math.PI / 180;
    const latest = track.at(-1)!.gps;
    scatter = {
      mean: { latitude: r(lat0, 9), longitude: r(lon0, 9), height: r(h0) },
      points: track.map((p) => ({
        east_m: r((p.lon - lon0) * rad * EARTH_R * Math.cos(lat0 * rad)),
        north_m: r((p.lat - lat0) * rad * EARTH_R),
        age_s: r(latest - p.gps, 1),
      })),
    };
  }
  // The 95 % ellipse from the fix's one-sigma east and north errors, inflated as the position's accuracy is (solution.ts).
  let ellipse: { east_m: number; north_m: number; confidence: number } | null = null;
  if (s?.position && a?.fix) {
    const factor = a.fix.dof > 0 ? Math.sqrt(Math.max(1, a.fix.sse / a.fix.dof)) : 1;
    ellipse = { east_m: r(a.fix.sigmaEnu[0] * factor * K95, 2), north_m: r(a.fix.sigmaEnu[1] * factor * K95, 2), confidence: 0.95 };
  } else if (s?.position?.horizontal_accuracy_m != null) {
    // A receiver's own fix gives one horizontal figure: a circle.
    ellipse = { east_m: r(s.position.horizontal_accuracy_m * K95 / Math.SQRT2, 2), north_m: r(s.position.horizontal_accuracy_m * K95 / Math.SQRT2, 2), confidence: 0.95 };
  }

  await receiver.flush();
  const nowMs = gpsToUnixMs(nowGps);
  const rows = await deps.ctx.db.query<{ event_id: string; started_at: Date; last_at: Date; resolved_at: Date | null; status: string; threat_type: string; checks: string }>(
    `SELECT event_id, started_at, last_at, resolved_at, status, threat_type, checks FROM nav_spoofing_events
      WHERE COALESCE(resolved_at, $2) >= $1 ORDER BY started_at DESC LIMIT 50`,
    [new Date(nowMs - 86_400_000), new Date(nowMs)],
  );
  const history: HistoryEvent[] = rows.map((row) => ({
    event_id: row.event_id,
    start: new Date(row.started_at).toISOString(),
    end: row.resolved_at ? new Date(row.resolved_at).toISOString() : null,
    status: row.status,
    threat_type: row.threat_type,
    checks: row.checks ? row.checks.split(',') : [],
  }));

  const checks = a
    ? a.checks.map((c) => ({ type: c.type, result: c.result, score: r(c.score), statistic: r(c.statistic), threshold: r(c.threshold), unit: c.unit, available: c.available }))
    : (s?.spoofing.checks_performed ?? []).map((c) => ({ type: c.type, result: c.result, score: c.score, statistic: null, threshold: null, unit: '', available: c.available }));

  return {
    now: new Date(nowMs).toISOString(),
    source: receiver.sourceStatus,
    epoch: s ? { seq: s.seq, time: gpsToIso(s.gpsTime), age_ms: Math.max(0, Date.now() - s.receivedAt), solver: s.solver } : null,
    // Receiver seconds since the last fix (grows through an outage; the epoch age does not).
    fix_age_s: track.length ? r(Math.max(0, nowGps - track.at(-1)!.gps), 1) : null,
    position: s?.position ?? null,
    no_fix_reason: s ? s.noFixReason : 'no epoch solved yet',
    ellipse,
    scatter,
    sky: s?.sky ?? [],
    constellations: s?.constellations ?? {},
    view: s?.view ?? null,
    time: {
      utc: timing.utc,
      gps_week: week,
      gps_tow: r(tow, 3),
      leap_seconds: timing.leap_seconds,
      source: timing.source,
      accuracy_ns: timing.accuracy_ns,
      bound_ns: timing.bounds ? r(Math.max(Math.abs(timing.bounds.lower_ns), Math.abs(timing.bounds.upper_ns)), 1) : null,
      clock_bias_ns: a ? r(a.clock.offsetNs, 1) : null,
      clock_drift_ns_per_hour: a ? r(a.clock.driftNsPerHour, 2) : null,
      holdover_age_s: hold?.current_holdover_age_s ?? 0,
      max_holdover_h: hold?.max_holdover_duration_h ?? null,
      oscillator: deps.settings.oscillator,
    },
    integrity: {
      status: s?.spoofing.status ?? 'clear',
      confidence: s?.spoofing.confidence ?? 0,
      threat_type: s?.spoofing.threat_type ?? null,
      overall_score: s?.view.overall_score ?? null,
      raim: s?.integrity.raim ?? null,
      checks,
    },
    history,
  };
}

export type PageState = Awaited<ReturnType<typeof pageState>>;

// ---- Rendering (the same functions draw the first page and every update) ----

const CONSTELLATION_COLOURS: Record<string, string> = { GPS: '#2563eb', Galileo: '#059669', GLONASS: '#dc2626', BeiDou: '#d97706', QZSS: '#7c3aed', SBAS: '#6b7280' };
const colour = (c: string) => CONSTELLATION_COLOURS[c] ?? '#475569';
const fmt = (v: number | null | undefined, d = 1, unit = '') => (v === null || v === undefined ? '—' : `${v.toFixed(d)}${unit}`);

function skyPlot(sky: SkySatellite[]): SafeHtml {
  const R = 130;
  const c = 150;
  const place = (s: SkySatellite) => {
    const rr = (R * (90 - Math.max(0, s.elevation_deg!))) / 90;
    const az = (s.azimuth_deg! * Math.PI) / 180;
    return { x: r(c + rr * Math.sin(az), 1), y: r(c - rr * Math.cos(az), 1) };
  };
  const shown = sky.filter((s) => s.azimuth_deg !== null && s.elevation_deg !== null);
  const at = shown.map(place);
  const labels = placeLabels(shown.map((s, i) => ({ ...at[i]!, text: s.sat })), 300, COMPASS);
  return html`<svg class="sky" viewBox="0 0 300 300" width="300" height="300" role="img" aria-label="Sky plot: ${shown.length} satellites">
<circle cx="150" cy="150" r="${R}" fill="#f8fafc" stroke="#94a3b8"/>
<circle cx="150" cy="150" r="${(R * 60) / 90}" fill="none" stroke="#cbd5e1"/>
<circle cx="150" cy="150" r="${(R * 30) / 90}" fill="none" stroke="#cbd5e1"/>
<line x1="150" y1="${150 - R}" x2="150" y2="${150 + R}" stroke="#e2e8f0"/><line x1="${150 - R}" y1="150" x2="${150 + R}" y2="150" stroke="#e2e8f0"/>
<text x="150" y="14" text-anchor="middle" class="axis">N</text><text x="292" y="154" text-anchor="end" class="axis">E</text><text x="150" y="297" text-anchor="middle" class="axis">S</text><text x="8" y="154" class="axis">W</text>
<text x="153" y="${150 - (R * 60) / 90 + 11}" class="tick">30°</text><text x="153" y="${150 - (R * 30) / 90 + 11}" class="tick">60°</text>
${shown.map((s, i) => {
  const { x, y } = at[i]!;
  const label = labels[i]!;
  const col = colour(s.constellation);
  const mark =
    s.status === 'used'
      ? html`<circle cx="${x}" cy="${y}" r="9" fill="${col}" stroke="#0f172a" stroke-width="0.5"/>`
      : s.status === 'excluded'
        ? html`<circle cx="${x}" cy="${y}" r="9" fill="#ffffff" stroke="${col}" stroke-width="2"/><path d="M ${x - 6} ${y - 6} L ${x + 6} ${y + 6} M ${x - 6} ${y + 6} L ${x + 6} ${y - 6}" stroke="#dc2626" stroke-width="2"/>`
        : s.status === 'flagged'
          ? html`<circle cx="${x}" cy="${y}" r="9" fill="${col}"/><circle cx="${x}" cy="${y}" r="12" fill="none" stroke="#f59e0b" stroke-width="2.5"/>`
          : html`<circle cx="${x}" cy="${y}" r="9" fill="#ffffff" stroke="${col}" stroke-width="2"/>`;
  return html`<g class="sat" data-sat="${s.sat}" data-status="${s.status}"><title>${s.sat} (${s.constellation}) az ${fmt(s.azimuth_deg)}° el ${fmt(s.elevation_deg)}° C/N0 ${fmt(s.cn0_dbhz)} dB-Hz, ${s.status}</title>${mark}<text x="${label.x}" y="${label.y}" text-anchor="${label.anchor}" class="label">${s.sat}</text></g>`;
})}
</svg>`;
}

function skyTable(sky: SkySatellite[]): SafeHtml {
  if (!sky.length) return html`<p class="muted">No satellites tracked.</p>`;
  return html`<div class="table-wrap"><table class="sats"><thead><tr><th>Sat</th><th>Const.</th><th>Az</th><th>El</th><th>C/N0</th><th>Status</th></tr></thead><tbody>${sky.map(
    (s) => html`<tr data-sat="${s.sat}"><td><span class="dot" data-constellation="${s.constellation}"></span>${s.sat}</td><td>${s.constellation}</td><td>${fmt(s.azimuth_deg, 0, '°')}</td><td>${fmt(s.elevation_deg, 0, '°')}</td><td>${fmt(s.cn0_dbhz)}</td><td><span class="tag ${s.status}">${s.status}</span></td></tr>`,
  )}</tbody></table></div>`;
}

function skyPanel(st: PageState): SafeHtml {
  const counts = (status: string) => st.sky.filter((s) => s.status === status).length;
  const consts = [...new Set(st.sky.map((s) => s.constellation))].sort();
  return html`<h2>Sky</h2>
<p class="summary"><strong id="sat-count">${st.sky.length}</strong> tracked · <span id="sat-used">${counts('used')}</span> used · ${counts('excluded')} excluded by RAIM · ${counts('flagged')} flagged</p>
<div class="sky-wrap">${skyPlot(st.sky)}
<ul class="legend">${consts.map((c) => html`<li><span class="dot" data-constellation="${c}"></span>${c}</li>`)}<li><span class="key used"></span>used</li><li><span class="key tracked"></span>tracked</li><li><span class="key excluded"></span>excluded (RAIM)</li><li><span class="key flagged"></span>flagged</li></ul></div>
${skyTable(st.sky)}`;
}

function scatterPlot(st: PageState): SafeHtml {
  const pts = st.scatter.points;
  const last = pts.at(-1);
  const e = st.ellipse;
  let span = 1;
  for (const p of pts) span = Math.max(span, Math.abs(p.east_m), Math.abs(p.north_m));
  if (e && last) span = Math.max(span, Math.abs(last.east_m) + e.east_m, Math.abs(last.north_m) + e.north_m);
  // A round scale: 1, 2, 5 x 10^k metres per grid step, four steps to the edge.
  const raw1 = (span * 1.1) / 4;
  const pow = 10 ** Math.floor(Math.log10(raw1));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((m) => m >= raw1)!;
  const half = step * 4;
  const S = 130 / half;
  const X = (m: number) => r(150 + m * S, 1);
  const Y = (m: number) => r(150 - m * S, 1);
  const grid = [-4, -3, -2, -1, 1, 2, 3, 4];
  const unit = step >= 1 ? `${+step.toPrecision(3)} m` : `${+(step * 100).toPrecision(3)} cm`;
  return html`<svg class="scatter" viewBox="0 0 300 300" width="300" height="300" role="img" aria-label="Positions of the last ten minutes, east and north metres around the mean">
<rect x="20" y="20" width="260" height="260" fill="#f8fafc" stroke="#94a3b8"/>
${grid.map((g) => html`<line x1="${X(g * step)}" y1="20" x2="${X(g * step)}" y2="280" stroke="#e2e8f0"/><line x1="20" y1="${Y(g * step)}" x2="280" y2="${Y(g * step)}" stroke="#e2e8f0"/>`)}
<line x1="150" y1="20" x2="150" y2="280" stroke="#94a3b8"/><line x1="20" y1="150" x2="280" y2="150" stroke="#94a3b8"/>
<text x="150" y="14" text-anchor="middle" class="axis">N</text><text x="292" y="154" text-anchor="end" class="axis">E</text>
<text x="24" y="276" class="tick">grid ${unit}</text>
${pts.map((p) => html`<circle class="pt" cx="${X(p.east_m)}" cy="${Y(p.north_m)}" r="2.5" fill="#2563eb" fill-opacity="${r(Math.max(0.15, 1 - p.age_s / TRACK_WINDOW_S), 2)}"/>`)}
${last && e ? html`<ellipse class="ellipse" cx="${X(last.east_m)}" cy="${Y(last.north_m)}" rx="${r(e.east_m * S, 1)}" ry="${r(e.north_m * S, 1)}" fill="#f59e0b" fill-opacity="0.12" stroke="#d97706" stroke-width="1.5"/>` : ''}
${last ? html`<circle cx="${X(last.east_m)}" cy="${Y(last.north_m)}" r="5" fill="#dc2626" stroke="#ffffff" stroke-width="1.5"><title>now: ${last.east_m} m east, ${last.north_m} m north of the mean</title></circle>` : ''}
</svg>`;
}

function deg(v: number, pos: string, neg: string): string {
  return `${Math.abs(v).toFixed(7)}° ${v >= 0 ? pos : neg}`;
}

function positionPanel(st: PageState): SafeHtml {
  const p = st.position;
  const age = st.fix_age_s === null ? '—' : `${st.fix_age_s.toFixed(1)} s`;
  return html`<h2>Position</h2>
${p ? '' : html`<p class="warn" id="no-fix">No fix: ${st.no_fix_reason ?? 'unknown'}</p>`}
<div class="pos-wrap">${scatterPlot(st)}
<dl class="figures">
<dt>Latitude</dt><dd id="lat">${p ? deg(p.latitude, 'N', 'S') : '—'}</dd>
<dt>Longitude</dt><dd id="lon">${p ? deg(p.longitude, 'E', 'W') : '—'}</dd>
<dt>Height</dt><dd>${p ? `${p.altitude.toFixed(2)} m` : '—'}</dd>
<dt>Speed</dt><dd>${fmt(p?.speed_mps, 2, ' m/s')}</dd>
<dt>Heading</dt><dd>${fmt(p?.heading_deg, 1, '°')}</dd>
<dt>Accuracy (1σ)</dt><dd>${p ? `${fmt(p.horizontal_accuracy_m, 2, ' m')} horizontal, ${fmt(p.vertical_accuracy_m, 2, ' m')} vertical` : '—'}</dd>
<dt>95 % ellipse</dt><dd id="ellipse">${st.ellipse ? `${st.ellipse.east_m.toFixed(2)} m east × ${st.ellipse.north_m.toFixed(2)} m north` : '—'}</dd>
<dt>Fix age</dt><dd id="fix-age">${age}</dd>
<dt>Points</dt><dd id="points">${st.scatter.points.length} in the last 10 min</dd>
</dl></div>`;
}

function timePanel(st: PageState): SafeHtml {
  const t = st.time;
  const holding = t.source === 'holdover';
  return html`<h2>Time</h2>
<p><span class="badge ${t.source}" id="time-source">${t.source === 'gnss' ? 'GNSS' : t.source === 'holdover' ? 'Holdover' : 'No time'}</span> <span class="muted">${t.oscillator} oscillator</span></p>
<dl class="figures">
<dt>UTC</dt><dd id="utc">${t.utc.replace('T', ' ').replace('Z', '')}</dd>
<dt>GPS time</dt><dd>week ${t.gps_week}, ${t.gps_tow.toFixed(3)} s (UTC + ${t.leap_seconds} s)</dd>
<dt>Clock bias</dt><dd>${fmt(t.clock_bias_ns, 1, ' ns')}</dd>
<dt>Clock drift</dt><dd>${fmt(t.clock_drift_ns_per_hour, 2, ' ns/h')}</dd>
<dt>Accuracy (1σ)</dt><dd>${fmt(t.accuracy_ns, 1, ' ns')}</dd>
<dt>${holding ? 'Holdover error bound (95 %)' : 'Error bound (95 %)'}</dt><dd id="bound" class="${holding ? 'grow' : ''}">${fmt(t.bound_ns, 1, ' ns')}</dd>
${holding ? html`<dt>In holdover for</dt><dd id="holdover-age">${t.holdover_age_s.toFixed(1)} s</dd>` : ''}
<dt>Holdover within 1 µs</dt><dd>${t.max_holdover_h === null ? '—' : `${t.max_holdover_h} h`}</dd>
</dl>`;
}

function timeline(st: PageState): SafeHtml {
  const now = Date.parse(st.now);
  const starts = st.history.map((h) => Date.parse(h.start));
  const from = Math.min(now - 3_600_000, ...starts);
  const W = 600;
  const X = (t: number) => r(((t - from) / (now - from)) * W, 1);
  const label = (t: number) => new Date(t).toISOString().slice(11, 16);
  return html`<svg class="timeline" viewBox="0 0 ${W} 40" width="100%" height="40" preserveAspectRatio="none" role="img" aria-label="Spoofing and interference events">
<rect x="0" y="8" width="${W}" height="16" fill="#dcfce7"/>
${st.history.map((h) => {
  const a = X(Date.parse(h.start));
  const b = X(h.end ? Date.parse(h.end) : now);
  return html`<rect class="event ${h.status}" x="${a}" y="8" width="${Math.max(2, r(b - a, 1))}" height="16" fill="${h.status === 'alert' ? '#dc2626' : '#f59e0b'}"><title>${h.status} ${h.threat_type} from ${h.start}${h.end ? ` to ${h.end}` : ', open'}</title></rect>`;
})}
</svg><div class="timeline-axis"><span>${label(from)}</span><span>${label(now)} UTC</span></div>`;
}

function integrityPanel(st: PageState): SafeHtml {
  const i = st.integrity;
  const name = (t: string) => t.replaceAll('_', ' ');
  return html`<h2>Integrity and spoofing</h2>
<p><span class="badge ${i.status}" id="spoof-status">${i.status}</span>${i.threat_type ? html` <span id="threat">${name(i.threat_type)}</span>` : ''} <span class="muted">confidence ${(i.confidence * 100).toFixed(0)} % · integrity score ${fmt(i.overall_score)}</span></p>
${i.raim ? html`<p class="muted">RAIM ${i.raim.available ? (i.raim.fault_detected ? `fault detected${i.raim.excluded.length ? `, excluded ${i.raim.excluded.join(', ')}` : ''}` : 'no fault') : 'unavailable'}${i.raim.test_statistic !== null ? ` · test ${i.raim.test_statistic} / threshold ${i.raim.threshold}` : ''}</p>` : ''}
<div class="table-wrap"><table class="checks"><thead><tr><th>Check</th><th>Result</th><th>Score</th><th>Statistic / threshold</th></tr></thead><tbody>${i.checks.map(
    (c) => html`<tr data-check="${c.type}" data-result="${c.available ? c.result : 'unavailable'}"><td>${name(c.type)}</td><td><span class="tag ${c.available ? c.result : 'unavailable'}">${c.available ? c.result : 'unavailable'}</span></td><td>${c.score.toFixed(2)}</td><td>${c.statistic === null ? '—' : `${c.statistic} / ${c.threshold} ${c.unit}`}</td></tr>`,
  )}</tbody></table></div>
<h3>Events</h3>
${timeline(st)}
${st.history.length
  ? html`<ol class="events">${st.history.slice(0, 10).map((h) => html`<li data-status="${h.status}" data-resolved="${h.end ? 'yes' : 'no'}"><span class="tag ${h.status}">${h.status}</span> ${name(h.threat_type)} · ${h.start.slice(11, 19)}${h.end ? ` – ${h.end.slice(11, 19)} resolved` : ' · open'}${h.checks.length ? html` <span class="muted">(${h.checks.map(name).join(', ')})</span>` : ''}</li>`)}</ol>`
  : html`<p class="muted" id="no-events">No events in the last 24 hours.</p>`}`;
}

function sourceLine(st: PageState): SafeHtml {
  return html`<span class="badge ${st.source.connected ? 'gnss' : 'holdover'}">${st.source.connected ? 'receiving' : 'no data'}</span> ${st.source.description}${st.epoch ? html` · epoch ${st.epoch.time.slice(11, 19)} UTC` : ''}`;
}

/** The panels as HTML fragments, keyed by the id of the element each replaces the inside of. */
export function panels(st: PageState): Record<string, string> {
  return { source: sourceLine(st).value, sky: skyPanel(st).value, position: positionPanel(st).value, time: timePanel(st).value, integrity: integrityPanel(st).value };
}

/** One live update: the panels and the figures the script marks the page with. */
export function panelsUpdate(st: PageState) {
  return { panels: panels(st), status: st.integrity.status, satellites: st.sky.map((s) => s.sat), time_source: st.time.source, epoch: st.epoch?.seq ?? null };
}

export async function registerPage(app: ServiceApp, deps: NavDeps, prefix: string): Promise<void> {
  const sessions = new ConsoleSessions(deps.ctx.db, {
    table: 'nav_sessions',
    cookie: 'lattice_nav',
    path: `${prefix}/`,
    now: deps.ctx.now,
    notAuthenticated: () => navError('UNAUTHORIZED', 'Not signed in'),
    badCredentials: () => navError('UNAUTHORIZED', 'Invalid email or password'),
  });
  const track = new Track();
  track.follow(deps);
  app.addHook('onClose', async () => track.stop());

  const assets = await serveAssets(app, { dir: fileURLToPath(new URL('../web/', import.meta.url)), prefix: `${prefix}/assets` });
  const page = { styles: [assets.url('nav.css')], modules: [assets.url('nav.js')], icon: assets.url('icon.svg') };
  const hidden = { hide: true };

  registerConsoleSignIn(app, sessions, prefix, (data) => ({ success: true, data }));
  const guard = sessions.required();
  app.get(`${prefix}/console/state`, { schema: hidden, preHandler: guard }, async () => ({ success: true, data: await pageState(deps, track.points) }));
  app.get(`${prefix}/console/panels`, { schema: hidden, preHandler: guard }, async () => ({ success: true, data: panelsUpdate(await pageState(deps, track.points)) }));
  registerPageEvents(app, { path: `${prefix}/console/events`, guard, track, render: async () => panelsUpdate(await pageState(deps, track.points)) });

  app.get(`${prefix}/`, { schema: hidden }, async (req, reply) => {
    const session: ConsoleSession | null = await sessions.find(req);
    if (!session) return sendPage(reply, { ...page, title: 'Sign in · Lattice positioning', body: consoleSignInView('Lattice positioning') });
    const st = await pageState(deps, track.points);
    const p = panels(st);
    const body = html`<header class="top"><h1>Lattice positioning</h1><span class="source" id="source">${raw(p.source!)}</span><span class="who">${session.email}</span><button type="button" class="secondary" id="signout">Sign out</button></header>
<main class="grid" id="live">
  <section class="card" id="sky">${raw(p.sky!)}</section>
  <section class="card" id="position">${raw(p.position!)}</section>
  <section class="card" id="time">${raw(p.time!)}</section>
  <section class="card" id="integrity">${raw(p.integrity!)}</section>
</main>
<p class="muted foot" id="updated" aria-live="polite">Connecting for live updates…</p>`;
    return sendPage(reply, { ...page, title: 'Lattice positioning', body });
  });
}
