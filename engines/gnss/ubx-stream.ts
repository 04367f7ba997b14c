// Groups decoded UBX messages into receiver epochs by their GPS time of week.
import type { GnssInputError } from './errors.ts';
import type { KeplerEphemeris } from './ephemeris/types.ts';
import { LnavDecoder } from './lnav.ts';
import { ecefToGeodetic } from './geodesy.ts';
import { emptyEpoch, type ReceiverEpoch, type ReceiverSatellite } from './receiver.ts';
import { frameKey, gnssLetter, UBX, type UbxFrame } from './ubx.ts';
import {
  decodeMonRf,
  decodeNavClock,
  decodeNavDop,
  decodeNavPosEcef,
  decodeNavPosLlh,
  decodeNavPvt,
  decodeNavSat,
  decodeNavSol,
  decodeNavStatus,
  decodeNavSvInfo,
  decodeNavTimeGps,
  decodeRxmRawx,
  decodeRxmSfrbx,
  type UbxSat,
} from './ubx-messages.ts';
import { fromWeekTow, gpsMinusUtcAtGps, gpsToIso } from './time.ts';
import type { Constellation } from './constants.ts';
import { constellationOf } from './constants.ts';

export interface DecodedEphemeris {
  ephemeris: KeplerEphemeris;
  receivedAt: number;
}

interface Pending {
  epoch: ReceiverEpoch;
  iTow: number;
  llh?: { lat: number; lon: number; height: number; hMsl?: number; source: 'pvt' | 'posllh' };
  ecef?: [number, number, number];
}

const RAD2DEG = 180 / Math.PI;

function satellites(list: UbxSat[]): ReceiverSatellite[] {
  return list.map((s) => {
    const letter = gnssLetter(s.gnssId);
    const id = letter ? `${letter}${String(s.svId).padStart(2, '0')}` : `${s.gnssId}:${s.svId}`;
    const constellation: Constellation | undefined = letter ? constellationOf(id) : undefined;
    return { id, constellation, prn: s.svId, el: s.el, az: s.az, cn0: s.cno, used: s.used, prResidual: s.prRes };
  });
}

/** Feeds UBX frames; emits an epoch when a frame with a new time of week arrives, and on flush. */
export class UbxEpochAssembler {
  private pending?: Pending;
  private week?: number;
  private leapSeconds?: number;
  private readonly lnav = new LnavDecoder();
  readonly errors: GnssInputError[] = [];
  /** GPS ephemerides decoded from RXM-SFRBX subframes, with the GPS time each completed. */
  readonly ephemerides: DecodedEphemeris[] = [];

  push(frame: UbxFrame): ReceiverEpoch | undefined {
    const key = frameKey(frame);
    const iTow = this.timeOfWeek(frame, key);
    let done: ReceiverEpoch | undefined;
    if (iTow !== undefined && (!this.pending || this.pending.iTow !== iTow)) {
      done = this.flush();
      this.pending = { epoch: emptyEpoch('ubx'), iTow };
    }
    if (!this.pending) return done;
    try {
      this.apply(this.pending, frame, key);
    } catch (err) {
      this.errors.push(err as GnssInputError);
    }
    return done;
  }

  /** Time of week in ms of messages that carry one (RAWX rounded to the navigation epoch). */
  private timeOfWeek(frame: UbxFrame, key: number): number | undefined {
    if (frame.payload.length < 4) return undefined;
    // RAWX is tagged with receiver-clock time a few ms off the navigation epoch it belongs to.
    if (key === UBX.RXM_RAWX) return frame.payload.length >= 8 ? Math.round(frame.payload.readDoubleLE(0) * 10) * 100 : undefined;
    if (frame.cls === 0x01) return frame.payload.readUInt32LE(0);
    return undefined;
  }

  private apply(p: Pending, f: UbxFrame, key: number): void {
    const e = p.epoch;
    switch (key) {
      case UBX.NAV_SOL: {
        const s = decodeNavSol(f);
        if (s.flags & 0x04) this.week = s.week;
        e.mode = s.gpsFix === 3 || s.gpsFix === 4 ? 3 : s.gpsFix === 2 || s.gpsFix === 5 ? 2 : 1;
        if (e.mode > 1 && (s.flags & 0x01)) {
          p.ecef = s.ecef;
          e.horizontalAccuracy ??= s.pAcc;
        } else if (!(s.flags & 0x01)) e.mode = 1;
        e.pdop = s.pdop;
        e.satellitesUsed = s.numSv;
        break;
      }
      case UBX.NAV_PVT: {
        const s = decodeNavPvt(f);
        const gnssFixOk = (s.flags & 0x01) !== 0;
        e.mode = gnssFixOk && (s.fixType === 3 || s.fixType === 4) ? 3 : gnssFixOk && (s.fixType === 2 || s.fixType === 5) ? 2 : 1;
        if (e.mode > 1) p.llh = { lat: s.lat, lon: s.lon, height: s.height, hMsl: s.hMsl, source: 'pvt' };
        e.satellitesUsed = s.numSv;
        e.pdop = s.pdop;
        e.horizontalAccuracy = s.hAcc;
        e.verticalAccuracy = s.vAcc;
        e.speedMps = s.gSpeed;
        e.trackDeg = s.headMot;
        e.climbMps = -s.velNed[2];
        break;
      }
      case UBX.NAV_STATUS: {
        const s = decodeNavStatus(f);
        if (p.llh?.source !== 'pvt') {
          e.mode = s.fixOk && (s.gpsFix === 3 || s.gpsFix === 4 || s.gpsFix === 5) ? 3 : s.fixOk && s.gpsFix === 2 ? 2 : 1;
        }
        break;
      }
      case UBX.NAV_POSLLH: {
        const s = decodeNavPosLlh(f);
        if (!p.llh || p.llh.source !== 'pvt') p.llh = { lat: s.lat, lon: s.lon, height: s.height, hMsl: s.hMsl, source: 'posllh' };
        e.horizontalAccuracy ??= s.hAcc;
        e.verticalAccuracy ??= s.vAcc;
        break;
      }
      case UBX.NAV_POSECEF:
        p.ecef ??= decodeNavPosEcef(f).ecef;
        break;
      case UBX.NAV_DOP: {
        const d = decodeNavDop(f);
        Object.assign(e, { gdop: d.gdop, pdop: d.pdop, tdop: d.tdop, vdop: d.vdop, hdop: d.hdop });
        break;
      }
      case UBX.NAV_TIMEGPS: {
        const t = decodeNavTimeGps(f);
        if (t.valid & 0x02) this.week = t.week;
        if (t.valid & 0x04) this.leapSeconds = t.leapS;
        break;
      }
      case UBX.NAV_CLOCK: {
        const c = decodeNavClock(f);
        e.clockBiasNs = c.biasNs;
        e.clockDriftNsPerS = c.driftNsPerS;
        break;
      }
      case UBX.NAV_SAT:
        e.satellites = satellites(decodeNavSat(f).sats);
        break;
      case UBX.NAV_SVINFO:
        e.satellites = satellites(decodeNavSvInfo(f).sats);
        break;
      case UBX.RXM_SFRBX: {
        const sf = decodeRxmSfrbx(f);
        if (sf.gnssId !== 0 || this.week === undefined) break;
        const now = fromWeekTow(this.week, p.iTow / 1000);
        const eph = this.lnav.push(`G${String(sf.svId).padStart(2, '0')}`, sf.words, now);
        if (eph) this.ephemerides.push({ ephemeris: eph, receivedAt: now });
        break;
      }
      case UBX.RXM_RAWX: {
        const r = decodeRxmRawx(f);
        this.week = r.week;
        e.rawTime = fromWeekTow(r.week, r.rcvTow);
        for (const m of r.meas) {
          const letter = gnssLetter(m.gnssId);
          if (!letter) continue;
          const sat = `${letter}${String(m.svId).padStart(2, '0')}`;
          // trkStat bit 0: pseudorange valid; bit 1: carrier phase valid.
          e.raw.push({
            sat,
            pseudorange: m.trkStat & 0x01 ? m.prMes : undefined,
            carrierPhase: m.trkStat & 0x02 ? m.cpMes : undefined,
            doppler: m.doMes,
            cn0: m.cno,
          });
        }
        break;
      }
      case UBX.MON_RF: {
        const rf = decodeMonRf(f);
        if (rf.blocks.length) {
          e.agcPercent = rf.blocks[0].agcPercent;
          e.jammingIndicator = rf.blocks[0].jamInd;
        }
        break;
      }
      default:
        break;
    }
  }

  flush(): ReceiverEpoch | undefined {
    const p = this.pending;
    this.pending = undefined;
    if (!p) return undefined;
    const e = p.epoch;
    if (e.mode > 1) {
      if (p.llh) {
        e.lat = p.llh.lat;
        e.lon = p.llh.lon;
        e.altHae = p.llh.height;
        e.altMsl = p.llh.hMsl;
      } else if (p.ecef) {
        const g = ecefToGeodetic(p.ecef);
        e.lat = g.lat * RAD2DEG;
        e.lon = g.lon * RAD2DEG;
        e.altHae = g.height;
      }
      if (p.ecef) e.ecef = p.ecef;
    }
    if (e.lat === undefined) e.mode = 1;
    if (this.week !== undefined) {
      e.gpsTime = fromWeekTow(this.week, p.iTow / 1000);
      e.leapSeconds = this.leapSeconds ?? gpsMinusUtcAtGps(e.gpsTime);
      e.time = gpsToIso(e.gpsTime);
      e.timeOfDay = e.time.slice(11, 23);
    }
    if (e.satellitesUsed === undefined && e.satellites.length) e.satellitesUsed = e.satellites.filter((s) => s.used).length;
    return e;
  }
}
