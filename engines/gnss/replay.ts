// Replays a recorded receiver log (UBX binary, NMEA text, or both interleaved) into receiver epochs.
import type { GnssInputError } from './errors.ts';
import { NmeaEpochAssembler } from './nmea-stream.ts';
import type { ReceiverEpoch } from './receiver.ts';
import { splitUbx } from './ubx.ts';
import { UbxEpochAssembler } from './ubx-stream.ts';

export interface ReplayResult {
  format: 'ubx' | 'nmea' | 'mixed' | 'empty';
  epochs: ReceiverEpoch[];
  /** Frames and sentences rejected (bad checksum, cut short, malformed), each with a clear message. */
  errors: GnssInputError[];
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
  return { format, epochs, errors: [...errors, ...ubx.errors, ...nmea.errors] };
}
