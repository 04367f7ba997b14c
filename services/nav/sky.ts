/**
 * The sky of one epoch: every tracked satellite with its azimuth and elevation (degrees), its
 * constellation, its C/N0 and its part in the fix (used, excluded by RAIM, flagged for a residual
 * beyond four sigma in the final solution, or tracked but not used). Built once per epoch with
 * the solution, for the positioning page's sky plot.
 */
import type { EpochAssessment, SatMeasurement } from '../../engines/gnss/index.ts';
import { azEl } from '../../engines/gnss/geodesy.ts';
import type { ReceiverSatellite } from '../../engines/gnss/receiver.ts';

export interface SkySatellite {
  sat: string;
  constellation: string;
  azimuth_deg: number | null;
  elevation_deg: number | null;
  cn0_dbhz: number | null;
  status: 'used' | 'excluded' | 'flagged' | 'tracked';
}

const DEG = 180 / Math.PI;
const r1 = (v: number) => Math.round(v * 10) / 10;

/** Residuals larger than this many of their own sigmas mark a satellite as flagged. */
export const FLAG_SIGMAS = 4;

export function skyFromEngine(a: EpochAssessment, measurements: SatMeasurement[]): SkySatellite[] {
  const fix = a.fix;
  const residuals = new Map((fix?.residuals ?? []).map((x) => [x.sat, x]));
  const excluded = new Set(a.raim.excluded);
  return measurements
    .map((m): SkySatellite => {
      const res = residuals.get(m.sat);
      const ae = res ? { az: res.az, el: res.el } : fix ? azEl(fix.position, fix.geodetic, m.satPos) : null;
      const status = excluded.has(m.sat) ? 'excluded' : res ? (Math.abs(res.residual) > FLAG_SIGMAS * res.sigma ? 'flagged' : 'used') : 'tracked';
      return {
        sat: m.sat,
        constellation: m.constellation,
        azimuth_deg: ae ? r1(ae.az * DEG) : null,
        elevation_deg: ae ? r1(ae.el * DEG) : null,
        cn0_dbhz: m.cn0 === undefined ? null : r1(m.cn0),
        status,
      };
    })
    .sort((x, y) => x.sat.localeCompare(y.sat));
}

/** A receiver's own report (gpsd SKY, NMEA GSV, UBX NAV-SAT): its figures as given. */
export function skyFromReceiver(satellites: ReceiverSatellite[]): SkySatellite[] {
  return satellites
    .map((s): SkySatellite => ({
      sat: s.id,
      constellation: s.constellation ?? 'unknown',
      azimuth_deg: s.az ?? null,
      elevation_deg: s.el ?? null,
      cn0_dbhz: s.cn0 ?? null,
      status: s.used ? 'used' : 'tracked',
    }))
    .sort((x, y) => x.sat.localeCompare(y.sat));
}
