/**
 * One solved epoch as the routes serve it: position, integrity, constellations and spoofing
 * figures, built once when the epoch is solved so that reads cost nothing. Two paths: the
 * engine's own solution (observations: RAIM, Doppler velocity, the six checks, the clock
 * filter), or, for a receiver that reports only its own fixes (NMEA, gpsd TPV), the receiver's
 * figures with every check the engine cannot run marked unavailable.
 */
import {
  constellationReport,
  integrityReport,
  positionReport,
  spoofingReport,
  type EpochAssessment,
  type ReceiverEpoch,
  type SatMeasurement,
} from '../../engines/gnss/index.ts';
import { gpsToIso } from '../../engines/gnss/time.ts';
import { signalPowerCheck } from '../../engines/gnss/spoofing/signal-power.ts';
import { skyFromEngine, skyFromReceiver, type SkySatellite } from './sky.ts';

const r = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

export interface PositionObject {
  latitude: number;
  longitude: number;
  altitude: number;
  accuracy_m: number | null;
  horizontal_accuracy_m: number | null;
  vertical_accuracy_m: number | null;
  speed_mps: number | null;
  heading_deg: number | null;
  timestamp: string;
}

export interface IntegrityObject {
  score: number;
  spoofing_detected: boolean;
  holdover_active: boolean;
  satellites_used: number;
  constellations: string[];
  raim: { available: boolean; fault_detected: boolean; excluded: string[]; test_statistic: number | null; threshold: number | null };
}

export interface IntegrityView {
  overall_score: number;
  position_integrity: number;
  timing_integrity: number;
  spoofing_integrity: number;
  satellites_visible: number;
  satellites_used: number;
  pdop: number | null;
  hdop: number | null;
  vdop: number | null;
  mean_cn0_dbhz: number | null;
}

export type ConstellationView = Record<string, { satellites_visible: number; satellites_used: number; integrity: number; cn0_avg: number | null }>;

export type SpoofingView = ReturnType<typeof spoofingReport>;

export interface Solution {
  seq: number;
  /** Receiver time tag of the epoch, GPS seconds. */
  gpsTime: number;
  /** Wall-clock ms when the epoch arrived and when its solution was ready. */
  receivedAt: number;
  solvedAt: number;
  /** `engine` (solved here from measurements) or `receiver` (the receiver's own fix). */
  solver: 'engine' | 'receiver';
  position: PositionObject | null;
  noFixReason: string | null;
  integrity: IntegrityObject;
  view: IntegrityView;
  constellations: ConstellationView;
  spoofing: SpoofingView;
  holdover: boolean;
  /** Every tracked satellite's place in the sky and part in the fix (the page's sky plot). */
  sky: SkySatellite[];
  assessment?: EpochAssessment;
}

/**
 * Position from the engine: one-sigma accuracies from the weighted covariance, inflated by the
 * RAIM a-posteriori variance factor (test statistic per degree of freedom) when the residuals
 * are larger than the noise model says; speed and heading from the Doppler velocity.
 */
export function enginePosition(a: EpochAssessment): PositionObject | null {
  const p = positionReport(a);
  if (!p || !a.fix) return null;
  const factor = a.fix.dof > 0 ? Math.sqrt(Math.max(1, a.fix.sse / a.fix.dof)) : 1;
  return {
    ...p,
    accuracy_m: r(p.accuracy_m * factor),
    horizontal_accuracy_m: r(p.horizontal_accuracy_m * factor),
    vertical_accuracy_m: r(p.vertical_accuracy_m * factor),
  };
}

export function engineSolution(seq: number, a: EpochAssessment, measurements: SatMeasurement[], receivedAt: number): Solution {
  const i = integrityReport(a);
  const cn0 = measurements.filter((m) => m.cn0 !== undefined).map((m) => m.cn0 ?? 0);
  return {
    seq,
    gpsTime: a.time,
    receivedAt,
    solvedAt: Date.now(),
    solver: 'engine',
    position: enginePosition(a),
    noFixReason: a.fix ? null : (a.noFixReason ?? 'no fix'),
    integrity: {
      score: i.score,
      spoofing_detected: i.spoofing_detected,
      holdover_active: i.holdover_active,
      satellites_used: i.satellites_used,
      constellations: i.constellations,
      raim: {
        available: a.raim.available,
        fault_detected: a.raim.faultDetected,
        excluded: a.raim.excluded,
        test_statistic: a.raim.testStatistic === null ? null : r(a.raim.testStatistic),
        threshold: a.raim.threshold === null ? null : r(a.raim.threshold),
      },
    },
    view: {
      overall_score: i.overall_score,
      position_integrity: i.position_integrity,
      timing_integrity: i.timing_integrity,
      spoofing_integrity: i.spoofing_integrity,
      satellites_visible: i.satellites_visible,
      satellites_used: i.satellites_used,
      pdop: i.pdop,
      hdop: i.hdop,
      vdop: i.vdop,
      mean_cn0_dbhz: cn0.length ? r(cn0.reduce((s, x) => s + x, 0) / cn0.length, 1) : null,
    },
    constellations: constellationReport(a, measurements) as ConstellationView,
    spoofing: spoofingReport(a),
    holdover: a.clock.holdover,
    sky: skyFromEngine(a, measurements),
    assessment: a,
  };
}

const DEG = Math.PI / 180;

/**
 * A receiver's own fix (no measurements to solve): its reported position, accuracies (GST or
 * UBX), speed and course; RAIM and the measurement checks cannot run here and say so; the
 * signal power check runs on the reported C/N0 and elevations. Scores follow the engine's
 * rules for a check that cannot run (0.5): position 0.5 x min(1, 3/PDOP), timing 0.5.
 */
export function receiverSolution(seq: number, e: ReceiverEpoch, gpsTime: number, receivedAt: number, holdover: boolean): Solution {
  const fix = e.mode >= 2 && e.lat !== undefined && e.lon !== undefined;
  const used = e.satellites.filter((s) => s.used);
  const tracked = e.satellites.filter((s) => (s.cn0 ?? 0) > 0);
  const sp = signalPowerCheck(tracked.map((s) => ({ cn0: s.cn0 ?? 0, el: s.el === undefined ? undefined : s.el * DEG })), { agcPercent: e.agcPercent });
  const constellations = [...new Set(used.map((s) => s.constellation).filter((c): c is NonNullable<typeof c> => c !== undefined))].sort();
  const h = e.horizontalAccuracy;
  const v = e.verticalAccuracy;
  const position: PositionObject | null = fix
    ? {
        latitude: r(e.lat ?? 0, 9),
        longitude: r(e.lon ?? 0, 9),
        altitude: r(e.altHae ?? e.altMsl ?? 0),
        accuracy_m: h !== undefined && v !== undefined ? r(Math.hypot(h, v)) : null,
        horizontal_accuracy_m: h === undefined ? null : r(h),
        vertical_accuracy_m: v === undefined ? null : r(v),
        speed_mps: e.speedMps === undefined ? null : r(e.speedMps),
        heading_deg: e.trackDeg === undefined || (e.speedMps ?? 0) < 0.2 ? null : r(e.trackDeg, 2),
        timestamp: gpsToIso(gpsTime),
      }
    : null;
  const positionScore = fix ? 0.5 * Math.min(1, 3 / (e.pdop ?? 3)) : 0;
  const spoofingScore = sp.available ? sp.score : 0.5;
  const timingScore = holdover ? 0.25 : 0.5;
  const pct = (x: number) => Math.round(x * 1000) / 10;
  const overall = pct(Math.cbrt(positionScore * spoofingScore * timingScore));
  const status = sp.result === 'warning' ? 'warning' : 'clear';
  const byConstellation: ConstellationView = {};
  for (const s of e.satellites) {
    const name = s.constellation ?? 'unknown';
    const c = (byConstellation[name] ??= { satellites_visible: 0, satellites_used: 0, integrity: 0, cn0_avg: null });
    c.satellites_visible++;
    if (s.used) c.satellites_used++;
  }
  for (const [name, c] of Object.entries(byConstellation)) {
    const cn0 = e.satellites.filter((s) => (s.constellation ?? 'unknown') === name && (s.cn0 ?? 0) > 0).map((s) => s.cn0 ?? 0);
    c.cn0_avg = cn0.length ? r(cn0.reduce((x, y) => x + y, 0) / cn0.length, 1) : null;
    // No residuals from a receiver's own fix: the share of its satellites in use stands for its integrity.
    c.integrity = c.satellites_visible ? r((100 * c.satellites_used) / c.satellites_visible, 1) : 0;
  }
  const unavailable = (type: string) => ({ type, result: 'pass' as const, score: 0.5, available: false });
  return {
    seq,
    gpsTime,
    receivedAt,
    solvedAt: Date.now(),
    solver: 'receiver',
    position,
    noFixReason: fix ? null : 'the receiver reports no fix',
    integrity: {
      score: overall,
      spoofing_detected: status !== 'clear',
      holdover_active: holdover,
      satellites_used: e.satellitesUsed ?? used.length,
      constellations,
      raim: { available: false, fault_detected: false, excluded: [], test_statistic: null, threshold: null },
    },
    view: {
      overall_score: overall,
      position_integrity: pct(positionScore),
      timing_integrity: pct(timingScore),
      spoofing_integrity: pct(spoofingScore),
      satellites_visible: e.satellites.length,
      satellites_used: e.satellitesUsed ?? used.length,
      pdop: e.pdop ?? null,
      hdop: e.hdop ?? null,
      vdop: e.vdop ?? null,
      mean_cn0_dbhz: tracked.length ? r(tracked.reduce((s, x) => s + (x.cn0 ?? 0), 0) / tracked.length, 1) : null,
    },
    constellations: byConstellation,
    spoofing: {
      status,
      confidence: sp.available ? r(status === 'clear' ? sp.score * 2 - 0.5 : 1 - sp.score) : 0,
      threat_type: status === 'clear' ? null : sp.measuredDbm < sp.expectedDbm ? 'jamming' : 'spoofing_position',
      checks_performed: ['doppler_consistency', 'multi_constellation', 'carrier_phase', 'clock_consistency', 'ml_anomaly'].map(unavailable) as SpoofingView['checks_performed'],
      analysis: {
        doppler_residuals: { status: 'pass', mean_residual_hz: null, threshold_hz: null },
        constellation_agreement: { status: 'pass', gps_galileo_delta_m: null },
        signal_power: { status: sp.result, measured_dbm: sp.available ? r(sp.measuredDbm, 1) : null, expected_dbm: sp.available ? r(sp.expectedDbm, 1) : null },
      },
      raw_metrics: { signal_power: { statistic: sp.statistic, threshold: sp.threshold, unit: sp.unit, detail: sp.detail } },
    },
    holdover,
    sky: skyFromReceiver(e.satellites),
  };
}
