// Groups NMEA sentences into receiver epochs: one epoch per time tag, GSA/GSV attached to the current one.
import { GnssInputError } from './errors.ts';
import { parseNmea, systemIdConstellation, talkerConstellation, type NmeaSentence, type NmeaTime } from './nmea.ts';
import { emptyEpoch, type ReceiverEpoch, type ReceiverSatellite } from './receiver.ts';
import type { Constellation } from './constants.ts';
import { utcToGps } from './time.ts';

const LETTER: Partial<Record<Constellation, string>> = { GPS: 'G', GLONASS: 'R', Galileo: 'E', BeiDou: 'C', QZSS: 'J', SBAS: 'S' };

/** NMEA 2.x-3.x numbering puts GLONASS at 65-96 and SBAS at 33-64 on a combined talker. */
function constellationOfPrn(prn: number, hint: Constellation | undefined): Constellation | undefined {
  if (hint) return hint;
  if (prn >= 1 && prn <= 32) return 'GPS';
  if (prn >= 33 && prn <= 64) return 'SBAS';
  if (prn >= 65 && prn <= 96) return 'GLONASS';
  return undefined;
}

function timeKey(t: NmeaTime): string {
  return `${String(t.hour).padStart(2, '0')}:${String(t.minute).padStart(2, '0')}:${t.second.toFixed(3).padStart(6, '0')}`;
}

/** Feeds NMEA lines; yields an epoch each time a new time tag starts, plus the last on `flush()`. */
export class NmeaEpochAssembler {
  private current?: ReceiverEpoch;
  private currentKey?: string;
  private date?: { year: number; month: number; day: number };
  private usedBySystem = new Map<string, number[]>();
  private sky = new Map<string, ReceiverSatellite>();
  readonly errors: GnssInputError[] = [];

  /** Parses one line; returns the epoch it completed, if any. Bad sentences are recorded in `errors` and skipped. */
  push(line: string): ReceiverEpoch | undefined {
    const text = line.trim();
    if (!text.startsWith('$') && !text.startsWith('!')) return undefined;
    let s: NmeaSentence;
    try {
      s = parseNmea(text);
    } catch (err) {
      if (err instanceof GnssInputError) {
        this.errors.push(err);
        return undefined;
      }
      throw err;
    }
    let done: ReceiverEpoch | undefined;
    const t = 'time' in s ? s.time : undefined;
    if (t) {
      const key = timeKey(t);
      if (key !== this.currentKey) {
        done = this.flush();
        this.current = emptyEpoch('nmea');
        this.currentKey = key;
        this.current.timeOfDay = key;
      }
    }
    if (!this.current) {
      this.current = emptyEpoch('nmea');
    }
    this.apply(this.current, s);
    return done;
  }

  private apply(e: ReceiverEpoch, s: NmeaSentence): void {
    switch (s.type) {
      case 'GGA':
        if (s.quality > 0 && s.lat !== undefined && s.lon !== undefined) {
          e.lat = s.lat;
          e.lon = s.lon;
          e.mode = s.altitudeMsl !== undefined ? 3 : Math.max(e.mode, 2) as 2 | 3;
          if (s.altitudeMsl !== undefined) {
            e.altMsl = s.altitudeMsl;
            if (s.geoidSeparation !== undefined) e.altHae = s.altitudeMsl + s.geoidSeparation;
          }
        }
        e.satellitesUsed = s.satellites;
        if (s.hdop !== undefined) e.hdop = s.hdop;
        break;
      case 'RMC':
        if (s.date) this.date = s.date;
        if (s.valid && s.lat !== undefined && s.lon !== undefined) {
          e.lat ??= s.lat;
          e.lon ??= s.lon;
          if (e.mode < 2) e.mode = 2;
          e.speedMps = s.speedMps;
          e.trackDeg = s.trackDeg;
        }
        break;
      case 'GLL':
        if (s.valid && s.lat !== undefined && s.lon !== undefined) {
          e.lat ??= s.lat;
          e.lon ??= s.lon;
        }
        break;
      case 'VTG':
        if (s.speedMps !== undefined) e.speedMps ??= s.speedMps;
        if (s.trackDeg !== undefined) e.trackDeg ??= s.trackDeg;
        break;
      case 'ZDA':
        if (s.date) this.date = s.date;
        break;
      case 'GSA': {
        const sys = systemIdConstellation(s.systemId) ?? talkerConstellation(s.talker) ?? 'combined';
        this.usedBySystem.set(sys, s.prns);
        e.pdop = s.pdop;
        e.hdop = s.hdop ?? e.hdop;
        e.vdop = s.vdop;
        if (s.mode === 1) e.mode = 1;
        break;
      }
      case 'GSV': {
        const sys = talkerConstellation(s.talker);
        for (const sat of s.satellites) {
          const c = constellationOfPrn(sat.prn, sys);
          const id = c ? `${LETTER[c]}${String(sat.prn).padStart(2, '0')}` : String(sat.prn);
          const prev = this.sky.get(id);
          // Several signals per satellite (NMEA 4.10): keep the strongest C/N0.
          const cn0 = Math.max(prev?.cn0 ?? -1, sat.cn0 ?? -1);
          this.sky.set(id, { id, constellation: c, prn: sat.prn, el: sat.el, az: sat.az, cn0: cn0 >= 0 ? cn0 : undefined, used: false });
        }
        break;
      }
      case 'GST':
        if (s.sigmaLat !== undefined && s.sigmaLon !== undefined) e.horizontalAccuracy = Math.hypot(s.sigmaLat, s.sigmaLon);
        if (s.sigmaAlt !== undefined) e.verticalAccuracy = s.sigmaAlt;
        break;
      default:
        break;
    }
  }

  /** Completes the epoch in progress. */
  flush(): ReceiverEpoch | undefined {
    const e = this.current;
    this.current = undefined;
    if (!e) return undefined;
    const used = new Set<string>();
    for (const [sys, prns] of this.usedBySystem) {
      for (const prn of prns) {
        const c = sys === 'combined' ? constellationOfPrn(prn, undefined) : (sys as Constellation);
        used.add(c ? `${LETTER[c]}${String(prn).padStart(2, '0')}` : String(prn));
      }
    }
    e.satellites = [...this.sky.values()].map((s) => ({ ...s, used: used.has(s.id) }));
    if (used.size > 0) e.satellitesUsed = used.size;
    if (this.date && e.timeOfDay) {
      const [h, m, sec] = e.timeOfDay.split(':').map(Number);
      const ms = Date.UTC(this.date.year, this.date.month - 1, this.date.day, h, m, 0) + Math.round(sec * 1000);
      e.time = new Date(ms).toISOString();
      e.gpsTime = utcToGps(ms);
    }
    this.usedBySystem = new Map();
    this.sky = new Map();
    return e;
  }
}
