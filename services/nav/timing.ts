/**
 * Time as the receiver knows it now: its clock reading (the last epoch's tag advanced by the
 * wall clock) corrected by the clock filter's offset estimate, in UTC, TAI and GPS week/TOW,
 * with the filter's one-sigma accuracy and bound. A receiver that reports only its own fixes
 * has no clock filter here: its time is the receiver's and its accuracy is unknown (null).
 */
import { timingReport } from '../../engines/gnss/report.ts';
import { gpsMinusUtcAtGps, gpsToIso, gpsToTaiIso, gpsWeekTow } from '../../engines/gnss/time.ts';
import type { NavReceiver } from './receiver.ts';

export interface TimingObject {
  utc: string;
  tai: string;
  gps_week: number;
  gps_tow: number;
  source: string;
  accuracy_ns: number | null;
  leap_seconds: number;
  bounds?: { lower_ns: number; upper_ns: number; confidence: number } | null;
}

export function currentTiming(receiver: NavReceiver, options: { includeBounds?: boolean } = {}): TimingObject {
  const engine = receiver.gnssEngine;
  const reading = receiver.nowGps();
  if (engine?.clock.initialised) {
    const t = reading - engine.clock.predict(reading).offset;
    const rep = timingReport(engine, t, { includeBounds: options.includeBounds });
    return { ...rep, bounds: options.includeBounds ? (rep.bounds ?? null) : undefined };
  }
  const { week, tow } = gpsWeekTow(reading);
  const holdover = receiver.latest?.holdover ?? true;
  return {
    utc: gpsToIso(reading),
    tai: gpsToTaiIso(reading),
    gps_week: week,
    gps_tow: Math.round(tow * 1000) / 1000,
    source: receiver.latest ? (holdover ? 'holdover' : 'gnss') : 'none',
    accuracy_ns: null,
    leap_seconds: gpsMinusUtcAtGps(reading),
    bounds: options.includeBounds ? null : undefined,
  };
}
