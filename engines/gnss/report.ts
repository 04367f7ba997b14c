// Maps engine state to the numbers the positioning and timing service (interface 7) serves.
import type { Constellation } from './constants.ts';
import type { EpochAssessment, GnssEngine } from './engine.ts';
import type { SatMeasurement } from './measurements.ts';
import type { SpoofingEvent } from './spoofing/history.ts';
import { gpsMinusUtcAtGps, gpsToIso, gpsToTaiIso, gpsWeekTow } from './time.ts';

const DEG = 180 / Math.PI;
const r = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

/** Position object: from the Kalman filter when it runs, else the epoch's solution (null heading when static). */
export function positionReport(a: EpochAssessment) {
  if (!a.fix) return null;
  // The Kalman filter's position and covariance when it runs, else the epoch's own solution.
  const sol = a.filtered ?? a.fix;
  const [se, sn, su] = sol.sigmaEnu;
  return {
    latitude: r(sol.geodetic.lat * DEG, 9),
    longitude: r(sol.geodetic.lon * DEG, 9),
    altitude: r(sol.geodetic.height),
    accuracy_m: r(Math.hypot(se, sn, su)),
    horizontal_accuracy_m: r(Math.hypot(se, sn)),
    vertical_accuracy_m: r(su),
    speed_mps: a.velocity ? r(a.velocity.speedMps) : null,
    heading_deg: a.velocity?.headingDeg === null || a.velocity === undefined ? null : r(a.velocity.headingDeg, 2),
    timestamp: gpsToIso(a.time),
  };
}

/** Integrity object and the /integrity figures. */
export function integrityReport(a: EpochAssessment) {
  return {
    score: a.integrity.overall,
    overall_score: a.integrity.overall,
    position_integrity: a.integrity.position,
    timing_integrity: a.integrity.timing,
    spoofing_integrity: a.integrity.spoofing,
    spoofing_detected: a.spoofing.status !== 'clear',
    holdover_active: a.clock.holdover,
    satellites_used: a.fix?.residuals.length ?? 0,
    satellites_visible: a.satellitesTracked,
    constellations: a.constellations,
    pdop: a.fix ? r(a.fix.dop.pdop) : null,
    hdop: a.fix ? r(a.fix.dop.hdop) : null,
    vdop: a.fix ? r(a.fix.dop.vdop) : null,
  };
}

/** Per-constellation visibility, use, integrity and mean C/N0 (/integrity/constellation). */
export function constellationReport(a: EpochAssessment, measurements: SatMeasurement[]) {
  const out: Partial<Record<Constellation, { satellites_visible: number; satellites_used: number; integrity: number; cn0_avg: number | null }>> = {};
  const used = new Set(a.fix?.residuals.map((x) => x.sat) ?? []);
  for (const m of measurements) {
    const c = (out[m.constellation] ??= { satellites_visible: 0, satellites_used: 0, integrity: 0, cn0_avg: null });
    c.satellites_visible++;
    if (used.has(m.sat)) c.satellites_used++;
  }
  for (const [name, c] of Object.entries(out) as [Constellation, NonNullable<(typeof out)[Constellation]>][]) {
    const cn0 = measurements.filter((m) => m.constellation === name && m.cn0 !== undefined).map((m) => m.cn0 ?? 0);
    c.cn0_avg = cn0.length ? r(cn0.reduce((x, y) => x + y, 0) / cn0.length, 1) : null;
    // Share of this constellation's residual energy that is within its expected noise, scaled to 100.
    const res = a.fix?.residuals.filter((x) => x.constellation === name) ?? [];
    const normalised = res.length ? res.reduce((s, x) => s + (x.residual / x.sigma) ** 2, 0) / res.length : 0;
    c.integrity = res.length ? r(100 * 2 ** -(normalised / 4), 1) : 0;
  }
  return out;
}

/** /spoofing/status and /spoofing/analyze figures of one epoch. */
export function spoofingReport(a: EpochAssessment) {
  const check = (t: string) => a.checks.find((c) => c.type === t);
  const doppler = check('doppler_consistency');
  const multi = check('multi_constellation');
  return {
    status: a.spoofing.status,
    confidence: a.spoofing.confidence,
    threat_type: a.spoofing.threatType,
    checks_performed: a.checks.filter((c) => c.type !== 'signal_power').map((c) => ({ type: c.type, result: c.result, score: c.score, available: c.available })),
    analysis: {
      doppler_residuals: { status: doppler?.result ?? 'pass', mean_residual_hz: doppler?.available ? doppler.statistic : null, threshold_hz: doppler?.threshold ?? null },
      constellation_agreement: { status: multi?.result ?? 'pass', gps_galileo_delta_m: multi && 'deltaM' in multi ? (multi as { deltaM: number | null }).deltaM : null },
      signal_power: { status: a.signalPower.result, measured_dbm: a.signalPower.available ? r(a.signalPower.measuredDbm, 1) : null, expected_dbm: a.signalPower.available ? r(a.signalPower.expectedDbm, 1) : null },
    },
    raw_metrics: Object.fromEntries(a.checks.map((c) => [c.type, { statistic: c.statistic, threshold: c.threshold, unit: c.unit, detail: c.detail }])),
  };
}

/** Spoofing events between two GPS times, with the summary counts of /spoofing/history. */
export function historyReport(events: SpoofingEvent[], from: number, to: number, limit = 100) {
  const inRange = events.filter((e) => e.last >= from && e.start <= to);
  const covered = inRange.reduce((s, e) => s + (Math.min(e.last, to) - Math.max(e.start, from)), 0);
  return {
    events: inRange.slice(-limit).map((e) => ({ timestamp: gpsToIso(e.start), status: e.status, threat_type: e.threatType, duration_s: e.last - e.start, resolved: e.resolved, checks: e.checks })),
    summary: {
      total_alerts: inRange.filter((e) => e.status === 'alert').length,
      total_warnings: inRange.filter((e) => e.status === 'warning').length,
      uptime_percent: to > from ? r(100 * (1 - covered / (to - from)), 2) : 100,
    },
  };
}

/**
 * Time at GPS instant `t` as the receiver knows it: UTC, TAI, GPS week and time of week, the
 * source (GNSS while locked, holdover otherwise), the one-sigma accuracy of the receiver clock
 * estimate and, optionally, a bound at `confidence`.
 */
export function timingReport(engine: GnssEngine, t: number, options: { includeBounds?: boolean; confidence?: number } = {}) {
  const h = engine.holdover(t, options.confidence ?? 0.95);
  const { week, tow } = gpsWeekTow(t);
  const holdover = engine.lastAssessment?.clock.holdover ?? true;
  const sigmaNs = h ? h.sigma * 1e9 : null;
  return {
    utc: gpsToIso(t),
    tai: gpsToTaiIso(t),
    gps_week: week,
    gps_tow: r(tow, 3),
    source: !h ? 'none' : holdover ? 'holdover' : 'gnss',
    accuracy_ns: sigmaNs === null ? null : r(sigmaNs, 2),
    leap_seconds: gpsMinusUtcAtGps(t),
    bounds: options.includeBounds && h ? { lower_ns: r(-h.bound * 1e9, 2), upper_ns: r(h.bound * 1e9, 2), confidence: h.confidence } : undefined,
  };
}

/**
 * Holdover status: drift estimate in ns per hour, how long the bound stays within `limitNs`
 * (the longest holdover the oscillator supports at that accuracy), and the current holdover age.
 */
export function holdoverReport(engine: GnssEngine, t: number, limitNs = 1000) {
  const state = engine.clock.state();
  const last = engine.clock.lastUpdate;
  let maxH: number | null = null;
  if (engine.clock.initialised && last !== undefined) {
    let lo = 0;
    let hi = 3600;
    while (hi < 3600 * 24 * 365 && (engine.clock.predict(last + hi).bound * 1e9) < limitNs) hi *= 2;
    for (let k = 0; k < 40; k++) {
      const mid = (lo + hi) / 2;
      if (engine.clock.predict(last + mid).bound * 1e9 < limitNs) lo = mid;
      else hi = mid;
    }
    maxH = r(lo / 3600, 2);
  }
  return {
    active: engine.lastAssessment?.clock.holdover ?? false,
    ready: engine.clock.initialised && engine.clock.updates >= 60,
    last_calibration: engine.clock.calibrationStart === undefined ? null : gpsToIso(engine.clock.calibrationStart),
    estimated_drift_ns_per_hour: r(state.drift * 3600e9, 3),
    drift_sigma_ns_per_hour: r(state.driftSigma * 3600e9, 3),
    max_holdover_duration_h: maxH,
    current_holdover_age_s: engine.holdoverSince === undefined ? 0 : r(t - engine.holdoverSince, 1),
    oscillator: engine.clock.oscillator,
  };
}

/**
 * Holdover metrics over the last 24 hours: number of holdovers, total time in holdover, the
 * largest clock error found at recovery, and the share of recoveries whose error was inside the
 * predicted 95 % bound (how well the drift model predicts; null before any recovery).
 */
export function holdoverMetrics(engine: GnssEngine, t: number) {
  const recent = engine.holdovers.filter((h) => (h.end ?? t) >= t - 86400);
  const judged = recent.filter((h) => h.errorNs !== undefined && h.predictedSigmaNs !== undefined);
  const inside = judged.filter((h) => Math.abs(h.errorNs ?? 0) <= 1.96 * (h.predictedSigmaNs ?? 0));
  return {
    last_24h_holdover_events: recent.length,
    total_holdover_time_s: r(recent.reduce((s2, h) => s2 + ((h.end ?? t) - Math.max(h.start, t - 86400)), 0), 1),
    max_drift_observed_ns: judged.length ? r(Math.max(...judged.map((h) => Math.abs(h.errorNs ?? 0))), 2) : null,
    drift_model_accuracy: judged.length ? r(inside.length / judged.length, 3) : null,
  };
}

/** /timing/status figures: lock state, source, last clock measurement, accuracy and holdover readiness. */
export function timingStatusReport(engine: GnssEngine, t: number) {
  const last = engine.clock.lastUpdate;
  const holdover = engine.lastAssessment?.clock.holdover ?? true;
  const h = engine.holdover(t);
  return {
    status: !engine.clock.initialised ? 'acquiring' : holdover ? 'holdover' : 'locked',
    source: !engine.clock.initialised ? 'none' : holdover ? 'holdover' : 'gnss',
    last_sync: last === undefined ? null : gpsToIso(last),
    accuracy_ns: h ? r(h.sigma * 1e9, 2) : null,
    holdover_ready: engine.clock.initialised && engine.clock.updates >= 60,
    holdover_calibration_age_h: engine.clock.calibrationStart === undefined ? null : r((t - engine.clock.calibrationStart) / 3600, 3),
  };
}

/**
 * A calibration checkpoint of the drift model: the filter calibrates continuously on every clock
 * measurement; this reports the current drift estimate and how much its uncertainty shrank
 * since the previous checkpoint (0 on the first), and starts a new checkpoint.
 */
export function calibrate(engine: GnssEngine, t: number) {
  if (!engine.clock.initialised || engine.clock.updates < 10) {
    return { calibration_status: 'insufficient_data', calibration_time_s: 0, new_drift_estimate_ns_per_hour: null, improvement_percent: 0 };
  }
  const st = engine.clock.state();
  const before = engine.lastCalibrationDriftSigma;
  engine.lastCalibrationDriftSigma = st.driftSigma;
  return {
    calibration_status: 'completed',
    calibration_time_s: r(t - (engine.clock.calibrationStart ?? t), 1),
    new_drift_estimate_ns_per_hour: r(st.drift * 3600e9, 3),
    improvement_percent: before ? r(Math.max(0, 100 * (1 - st.driftSigma / before)), 1) : 0,
  };
}
