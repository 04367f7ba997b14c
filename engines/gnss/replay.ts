// Replays a recorded receiver log (UBX binary, NMEA text, or both interleaved) into receiver epochs.
import type { GnssInputError } from './errors.ts';
import { GnssEngine, type EpochAssessment } from './engine.ts';
import type { OscillatorClass } from './clock.ts';
import type { ObsEpoch } from './rinex/obs.ts';
import type { NavData } from './ephemeris/types.ts';
import { NmeaEpochAssembler } from './nmea-stream.ts';
import type { ReceiverEpoch } from './receiver.ts';
import { splitUbx } from './ubx.ts';
import { UbxEpochAssembler, type DecodedEphemeris } from './ubx-stream.ts';

export interface ReplayResult {
  format: 'ubx' | 'nmea' | 'mixed' | 'empty';
  epochs: ReceiverEpoch[];
  /** Frames and sentences rejected (bad checksum, cut short, malformed), each with a clear message. */
  errors: GnssInputError[];
  /** GPS ephemerides decoded from the log's navigation subframes (UBX RXM-SFRBX). */
  ephemerides: DecodedEphemeris[];
}

/**
 * Decodes a whole log. Lines starting with `#` (gpsd regression-log comments) and gpsd JSON
 * lines are skipped; NMEA sentences and UBX frames become epochs in their own order.
 *
 * @example
 * const { epochs } = replayLog(readFileSync('ublox-neo-m8t.log'));
 * epochs.filter((e) => e.mode === 3).map((e) => [e.time, e.lat, e.lon]);
 */
export function replayLog(data: Buffer): ReplayResult {
  const { frames, text, errors } = splitUbx(data);
  const ubx = new UbxEpochAssembler();
  const nmea = new NmeaEpochAssembler();
  const ubxEpochs: ReceiverEpoch[] = [];
  const nmeaEpochs: ReceiverEpoch[] = [];
  for (const f of frames) {
    const e = ubx.push(f);
    if (e) ubxEpochs.push(e);
  }
  const last = ubx.flush();
  if (last) ubxEpochs.push(last);
  for (const segment of text) {
    for (const line of segment.split(/\r?\n/)) {
      const t = line.trim();
      if (!t.startsWith('$')) continue;
      const e = nmea.push(t);
      if (e) nmeaEpochs.push(e);
    }
  }
  const lastNmea = nmea.flush();
  if (lastNmea) nmeaEpochs.push(lastNmea);
  const epochs = [...ubxEpochs, ...nmeaEpochs];
  const format = ubxEpochs.length && nmeaEpochs.length ? 'mixed' : ubxEpochs.length ? 'ubx' : nmeaEpochs.length ? 'nmea' : 'empty';
  return { format, epochs, errors: [...errors, ...ubx.errors, ...nmea.errors], ephemerides: ubx.ephemerides };
}

/** A replayed epoch's raw measurements as an observation epoch for the engine, or undefined without any. */
export function rawToObs(e: ReceiverEpoch): ObsEpoch | undefined {
  if (e.rawTime === undefined || e.raw.length === 0) return undefined;
  return {
    time: e.rawTime,
    sats: e.raw.map((m) => ({ sat: m.sat, pseudorange: m.pseudorange, carrierPhase: m.carrierPhase, doppler: m.doppler, cn0: m.cn0, code: 'C1C' })),
  };
}

/**
 * Solves a replayed log with the engine itself: the raw measurements (RXM-RAWX) of each epoch
 * with the ephemerides decoded from its subframes (RXM-SFRBX) as they became available, plus
 * those of a navigation file when one is given (a log without subframes needs one).
 * Epochs before enough ephemerides are known come out as no-fix with the reason.
 */
export function solveReplay(
  replay: ReplayResult,
  options: { oscillator?: OscillatorClass; nav?: NavData } = {},
): { epoch: ReceiverEpoch; assessment: EpochAssessment }[] {
  const external = options.nav?.ephemerides ?? [];
  const engine = new GnssEngine({ nav: { ephemerides: external, iono: options.nav?.iono }, oscillator: options.oscillator ?? 'TCXO' });
  const out: { epoch: ReceiverEpoch; assessment: EpochAssessment }[] = [];
  let known = 0;
  for (const e of replay.epochs) {
    const obs = rawToObs(e);
    if (!obs) continue;
    // Use the ephemerides whose three subframes had arrived by this epoch.
    const available = replay.ephemerides.filter((x) => x.receivedAt <= obs.time + 1);
    if (available.length !== known) {
      engine.setNav({ ephemerides: [...external, ...available.map((x) => x.ephemeris)], iono: options.nav?.iono });
      known = available.length;
    }
    out.push({ epoch: e, assessment: engine.process(obs, { agcPercent: e.agcPercent }) });
  }
  return out;
}
