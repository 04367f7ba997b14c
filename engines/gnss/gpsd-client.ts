// gpsd JSON protocol: TPV, SKY, GST, TOFF, PPS and RAW reports to receiver epochs, from a socket or recorded lines.
import { connect, type Socket } from 'node:net';
import { GnssInputError } from './errors.ts';
import { emptyEpoch, type ReceiverEpoch, type ReceiverSatellite } from './receiver.ts';
import { constellationOf } from './constants.ts';
import { gnssLetter } from './ubx.ts';
import { utcToGps } from './time.ts';

type Json = Record<string, unknown>;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Groups gpsd reports into epochs: a TPV with a new time starts one; SKY, GST, TOFF, PPS and RAW join the current one. */
export class GpsdEpochAssembler {
  private current?: ReceiverEpoch;
  readonly errors: GnssInputError[] = [];

  /** Feeds one JSON line; returns the epoch it completed, if any. Malformed lines are recorded in `errors`. */
  push(line: string): ReceiverEpoch | undefined {
    const t = line.trim();
    if (!t.startsWith('{')) return undefined;
    let o: Json;
    try {
      o = JSON.parse(t) as Json;
    } catch {
      this.errors.push(new GnssInputError('GPSD_PROTOCOL', `gpsd sent a line that is not JSON: ${t.slice(0, 40)}`));
      return undefined;
    }
    switch (o.class) {
      case 'TPV':
        return this.tpv(o);
      case 'SKY':
        this.sky(o);
        return undefined;
      case 'GST': {
        const e = this.ensure();
        const lat = num(o.lat);
        const lon = num(o.lon);
        if (lat !== undefined && lon !== undefined) e.horizontalAccuracy = Math.hypot(lat, lon);
        e.verticalAccuracy = num(o.alt) ?? e.verticalAccuracy;
        return undefined;
      }
      case 'TOFF':
      case 'PPS': {
        // Offset of the system clock against GNSS time at the top of the second, in ns.
        const real = (num(o.real_sec) ?? 0) * 1e9 + (num(o.real_nsec) ?? 0);
        const clock = (num(o.clock_sec) ?? 0) * 1e9 + (num(o.clock_nsec) ?? 0);
        if (o.real_sec !== undefined && o.clock_sec !== undefined) this.ensure().clockBiasNs = clock - real;
        return undefined;
      }
      case 'RAW':
        this.raw(o);
        return undefined;
      default:
        return undefined;
    }
  }

  private ensure(): ReceiverEpoch {
    this.current ??= emptyEpoch('gpsd');
    return this.current;
  }

  private tpv(o: Json): ReceiverEpoch | undefined {
    const time = typeof o.time === 'string' ? o.time : undefined;
    let done: ReceiverEpoch | undefined;
    if (time && this.current?.time && this.current.time !== time) done = this.flush();
    const e = this.ensure();
    if (time) {
      e.time = time;
      e.timeOfDay = time.slice(11, 23);
      const ms = Date.parse(time);
      if (Number.isFinite(ms)) e.gpsTime = utcToGps(ms);
    }
    const mode = num(o.mode);
    e.mode = mode === 3 ? 3 : mode === 2 ? 2 : 1;
    if (e.mode > 1) {
      e.lat = num(o.lat) ?? e.lat;
      e.lon = num(o.lon) ?? e.lon;
      e.altHae = num(o.altHAE) ?? e.altHae;
      e.altMsl = num(o.altMSL) ?? e.altMsl;
      const x = num(o.ecefx);
      const y = num(o.ecefy);
      const z = num(o.ecefz);
      if (x !== undefined && y !== undefined && z !== undefined) e.ecef = [x, y, z];
    }
    e.speedMps = num(o.speed) ?? e.speedMps;
    e.trackDeg = num(o.track) ?? e.trackDeg;
    e.climbMps = num(o.climb) ?? e.climbMps;
    e.leapSeconds = num(o.leapseconds) ?? e.leapSeconds;
    const epx = num(o.epx);
    const epy = num(o.epy);
    if (epx !== undefined && epy !== undefined) e.horizontalAccuracy ??= Math.hypot(epx, epy) / 1.96;
    return done;
  }

  private sky(o: Json): void {
    const e = this.ensure();
    for (const k of ['pdop', 'hdop', 'vdop', 'gdop', 'tdop'] as const) {
      const v = num(o[k]);
      if (v !== undefined) e[k] = v;
    }
    if (!Array.isArray(o.satellites)) return;
    const seen = new Map<string, ReceiverSatellite>();
    for (const s of o.satellites as Json[]) {
      const prn = num(s.PRN) ?? 0;
      const gnssid = num(s.gnssid);
      const svid = num(s.svid) ?? prn;
      const letter = gnssid !== undefined ? gnssLetter(gnssid) : prn <= 32 ? 'G' : prn >= 65 && prn <= 96 ? 'R' : undefined;
      const id = letter ? `${letter}${String(letter === 'R' && gnssid === undefined ? prn - 64 : svid).padStart(2, '0')}` : String(prn);
      const prev = seen.get(id);
      const sat: ReceiverSatellite = {
        id,
        constellation: letter ? constellationOf(id) : undefined,
        prn,
        el: num(s.el),
        az: num(s.az),
        cn0: Math.max(num(s.ss) ?? 0, prev?.cn0 ?? 0) || undefined,
        used: s.used === true || prev?.used === true,
        prResidual: num(s.prRes),
      };
      seen.set(id, sat);
    }
    e.satellites = [...seen.values()];
    e.satellitesUsed = num(o.uSat) ?? e.satellites.filter((s) => s.used).length;
  }

  private raw(o: Json): void {
    const e = this.ensure();
    if (!Array.isArray(o.rawdata)) return;
    for (const m of o.rawdata as Json[]) {
      const letter = gnssLetter(num(m.gnssid) ?? -1);
      if (!letter) continue;
      e.raw.push({
        sat: `${letter}${String(num(m.svid) ?? 0).padStart(2, '0')}`,
        pseudorange: num(m.pr),
        carrierPhase: num(m.l),
        doppler: num(m.d),
        cn0: num(m.snr),
      });
    }
  }

  flush(): ReceiverEpoch | undefined {
    const e = this.current;
    this.current = undefined;
    return e;
  }
}

/** Decodes recorded gpsd JSON output (for example `gpsfake -p` output or a `.chk` file). */
export function parseGpsdJson(text: string): { epochs: ReceiverEpoch[]; errors: GnssInputError[] } {
  const a = new GpsdEpochAssembler();
  const epochs: ReceiverEpoch[] = [];
  for (const line of text.split(/\r?\n/)) {
    const e = a.push(line);
    if (e) epochs.push(e);
  }
  const last = a.flush();
  if (last) epochs.push(last);
  return { epochs, errors: a.errors };
}

export interface GpsdStreamOptions {
  host: string;
  port: number;
  /** Stop after this many epochs (default: run until the connection closes or `signal` aborts). */
  maxEpochs?: number;
  /** Give up when no data arrives for this long, ms (default 10000). */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Connects to gpsd, enables JSON watch mode (with raw measurements) and yields epochs as they
 * complete. The socket is closed when the iteration ends, however it ends.
 *
 * @example
 * for await (const epoch of streamGpsd({ host: '127.0.0.1', port: 2947, maxEpochs: 10 })) {
 *   console.log(epoch.time, epoch.lat, epoch.lon, epoch.satellitesUsed);
 * }
 */
export async function* streamGpsd(options: GpsdStreamOptions): AsyncGenerator<ReceiverEpoch> {
  const socket: Socket = connect({ host: options.host, port: options.port });
  socket.setEncoding('utf8');
  const assembler = new GpsdEpochAssembler();
  const queue: ReceiverEpoch[] = [];
  let buffered = '';
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  socket.on('connect', () => socket.write('?WATCH={"enable":true,"json":true,"raw":1};\n'));
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const e = assembler.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      if (e) queue.push(e);
    }
    notify();
  });
  socket.on('error', (err) => {
    failure = new GnssInputError('GPSD_PROTOCOL', `gpsd at ${options.host}:${options.port}: ${err.message}`);
    notify();
  });
  socket.on('close', () => {
    ended = true;
    const last = assembler.flush();
    if (last) queue.push(last);
    notify();
  });
  socket.setTimeout(options.idleTimeoutMs ?? 10000, () => {
    failure = new GnssInputError('GPSD_PROTOCOL', `gpsd at ${options.host}:${options.port} sent nothing for ${options.idleTimeoutMs ?? 10000} ms`);
    socket.destroy();
  });
  const onAbort = () => socket.destroy();
  options.signal?.addEventListener('abort', onAbort);
  let yielded = 0;
  try {
    while (options.maxEpochs === undefined || yielded < options.maxEpochs) {
      const next = queue.shift();
      if (next) {
        yielded++;
        yield next;
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    socket.destroy();
  }
}
