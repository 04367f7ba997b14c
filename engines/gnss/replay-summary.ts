// Turns replayed receiver epochs into reports: position, satellites, DOPs and the signal power check per epoch.
import type { ReceiverEpoch } from './receiver.ts';
import { signalPowerCheck } from './spoofing/signal-power.ts';

const RAD = Math.PI / 180;

export interface ReplayEpochReport {
  time?: string;
  fix: boolean;
  mode: number;
  latitude?: number;
  longitude?: number;
  altitude?: number;
  satellites_used?: number;
  satellites_visible: number;
  pdop?: number;
  hdop?: number;
  vdop?: number;
  horizontal_accuracy_m?: number;
  signal_power?: { status: 'pass' | 'warning'; mean_cn0_dbhz: number; measured_dbm: number; expected_dbm: number; score: number; detail: string };
}

/** Per-epoch reports and totals for a replayed log or gpsd stream. */
export function summariseReplay(epochs: ReceiverEpoch[]): {
  epochs: ReplayEpochReport[];
  summary: { epochs: number; fixes: number; mean_satellites_used: number; signal_warnings: number };
} {
  const reports = epochs.map((e): ReplayEpochReport => {
    const tracked = e.satellites.filter((s) => (s.cn0 ?? 0) > 0);
    const sp = tracked.length >= 3 ? signalPowerCheck(tracked.map((s) => ({ cn0: s.cn0 ?? 0, el: s.el === undefined ? undefined : s.el * RAD })), { agcPercent: e.agcPercent }) : undefined;
    return {
      time: e.time ?? e.timeOfDay,
      fix: e.mode > 1 && e.lat !== undefined,
      mode: e.mode,
      latitude: e.lat,
      longitude: e.lon,
      altitude: e.altHae ?? e.altMsl,
      satellites_used: e.satellitesUsed,
      satellites_visible: e.satellites.length,
      pdop: e.pdop,
      hdop: e.hdop,
      vdop: e.vdop,
      horizontal_accuracy_m: e.horizontalAccuracy,
      signal_power: sp && sp.available
        ? { status: sp.result, mean_cn0_dbhz: Math.round(sp.meanCn0 * 10) / 10, measured_dbm: Math.round(sp.measuredDbm * 10) / 10, expected_dbm: Math.round(sp.expectedDbm * 10) / 10, score: sp.score, detail: sp.detail }
        : undefined,
    };
  });
  const fixes = reports.filter((r) => r.fix);
  const used = fixes.map((r) => r.satellites_used ?? 0);
  return {
    epochs: reports,
    summary: {
      epochs: reports.length,
      fixes: fixes.length,
      mean_satellites_used: used.length ? Math.round((used.reduce((a, b) => a + b, 0) / used.length) * 100) / 100 : 0,
      signal_warnings: reports.filter((r) => r.signal_power?.status === 'warning').length,
    },
  };
}
