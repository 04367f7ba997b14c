// A recorded log replayed as a live source at real speed: RINEX observation + navigation files, or a UBX/NMEA receiver log.
import { readFileSync } from 'node:fs';
import type { NavData } from '../ephemeris/types.ts';
import { parseNav } from '../rinex/nav.ts';
import { parseObs } from '../rinex/obs.ts';
import { rawToObs, replayLog } from '../replay.ts';
import { utcToGps } from '../time.ts';
import type { LiveEpoch, LiveSink, LiveSource } from './source.ts';

export interface LogSourceOptions {
  /** A RINEX observation file (with `nav`), or a UBX / NMEA / mixed receiver log. */
  path: string;
  /** RINEX navigation file: required with RINEX observations, optional for a receiver log (adds ephemerides for its raw measurements). */
  nav?: string;
  /** Log seconds per wall-clock second (default 1: the log's own pace). */
  rate?: number;
  /** Start again from the beginning when the log ends (default: the source ends, and the service holds over). */
  loop?: boolean;
  now?: () => number;
}

/** The epochs of a log with their GPS times, decoded once at start. */
export function loadLogEpochs(options: { path: string; nav?: string }): { epochs: LiveEpoch[]; format: string; rejected: number } {
  const data = readFileSync(options.path);
  const nav: NavData | undefined = options.nav ? parseNav(readFileSync(options.nav, 'latin1')) : undefined;
  const head = data.subarray(0, 400).toString('latin1');
  if (head.includes('RINEX VERSION / TYPE') && head.slice(20, 21) === 'O') {
    if (!nav) throw new Error(`${options.path} is a RINEX observation file: give its navigation file too (?nav=FILE)`);
    const obs = parseObs(data.toString('latin1'));
    return { epochs: obs.epochs.map((o, i) => ({ obs: o, gpsTime: o.time, nav: i === 0 ? nav : undefined })), format: 'rinex', rejected: 0 };
  }
  const replay = replayLog(data);
  const out: LiveEpoch[] = [];
  let known = -1;
  let lastTime: number | undefined;
  for (const e of replay.epochs) {
    const obs = rawToObs(e);
    const gpsTime = obs?.time ?? e.gpsTime ?? (e.time && e.time.length > 12 ? utcToGps(Date.parse(e.time)) : undefined) ?? (lastTime === undefined ? undefined : lastTime + 1);
    if (gpsTime === undefined || !Number.isFinite(gpsTime)) continue;
    lastTime = gpsTime;
    let epochNav: NavData | undefined;
    if (obs) {
      // The ephemerides whose subframes had arrived by this epoch, plus those of the navigation file.
      const available = replay.ephemerides.filter((x) => x.receivedAt <= obs.time + 1);
      if (available.length !== known) {
        known = available.length;
        epochNav = { ephemerides: [...(nav?.ephemerides ?? []), ...available.map((x) => x.ephemeris)], iono: nav?.iono };
      }
    }
    out.push({ obs, receiver: e, gpsTime, agcPercent: e.agcPercent, nav: epochNav });
  }
  return { epochs: out, format: replay.format, rejected: replay.errors.length };
}

export class LogSource implements LiveSource {
  readonly kind = 'log' as const;
  readonly description: string;
  readonly intervalS: number;
  readonly rate: number;
  private readonly epochs: LiveEpoch[];
  private readonly loop: boolean;
  private readonly now: () => number;
  private timer?: NodeJS.Timeout;
  private next = 0;
  private startWall = 0;
  private ended = false;

  constructor(options: LogSourceOptions) {
    const { epochs, format } = loadLogEpochs(options);
    if (epochs.length === 0) throw new Error(`${options.path}: no epochs with a time in this log`);
    this.epochs = epochs;
    this.rate = options.rate ?? 1;
    this.loop = options.loop ?? false;
    this.now = options.now ?? Date.now;
    const gaps = epochs.slice(1).map((e, i) => e.gpsTime - epochs[i]!.gpsTime).filter((g) => g > 0).sort((a, b) => a - b);
    this.intervalS = gaps.length ? gaps[Math.floor(gaps.length / 2)]! : 1;
    this.description = `log ${options.path} (${format}, ${epochs.length} epochs${this.rate === 1 ? '' : `, ${this.rate}x real time`})`;
  }

  /** Epochs in the log, in order. */
  get length(): number {
    return this.epochs.length;
  }

  start(sink: LiveSink): void {
    if (this.timer) return;
    this.startWall = this.now();
    sink.status({ connected: true, message: this.description });
    const t0 = this.epochs[0]!.gpsTime;
    const tick = () => {
      if (this.ended) return;
      const logElapsed = ((this.now() - this.startWall) / 1000) * this.rate;
      while (this.next < this.epochs.length && this.epochs[this.next]!.gpsTime - t0 <= logElapsed) sink.epoch(this.epochs[this.next++]!);
      if (this.next >= this.epochs.length) {
        if (this.loop) {
          this.next = 0;
          this.startWall = this.now();
        } else {
          this.ended = true;
          sink.status({ connected: false, message: `log ended after ${this.epochs.length} epochs` });
        }
      }
    };
    tick();
    this.timer = setInterval(tick, Math.max(5, Math.round((1000 * this.intervalS) / this.rate / 2)));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
