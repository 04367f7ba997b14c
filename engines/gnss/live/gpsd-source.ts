// A gpsd server as a live source: epochs as gpsd reports them, reconnecting when the connection drops.
import { readFileSync } from 'node:fs';
import type { NavData } from '../ephemeris/types.ts';
import { streamGpsd } from '../gpsd-client.ts';
import { rawToObs } from '../replay.ts';
import { parseNav } from '../rinex/nav.ts';
import { utcToGps } from '../time.ts';
import type { LiveSink, LiveSource } from './source.ts';

export interface GpsdSourceOptions {
  host: string;
  port: number;
  /** RINEX navigation file for the receiver's raw measurements (gpsd RAW); without it the receiver's own fixes are used. */
  nav?: string;
  /** Wait this long before reconnecting, ms (default 2000). */
  retryMs?: number;
  /** A connection that sends nothing for this long counts as lost, ms (default 5000). */
  idleTimeoutMs?: number;
}

export class GpsdSource implements LiveSource {
  readonly kind = 'gpsd' as const;
  readonly description: string;
  readonly intervalS = 1;
  readonly rate = 1;
  private readonly options: GpsdSourceOptions;
  private readonly nav?: NavData;
  private abort?: AbortController;
  private running?: Promise<void>;

  constructor(options: GpsdSourceOptions) {
    this.options = options;
    this.nav = options.nav ? parseNav(readFileSync(options.nav, 'latin1')) : undefined;
    this.description = `gpsd://${options.host}:${options.port}`;
  }

  start(sink: LiveSink): void {
    if (this.running) return;
    const abort = new AbortController();
    this.abort = abort;
    this.running = (async () => {
      let first = true;
      while (!abort.signal.aborted) {
        let got = 0;
        try {
          for await (const e of streamGpsd({ host: this.options.host, port: this.options.port, signal: abort.signal, idleTimeoutMs: this.options.idleTimeoutMs ?? 5000 })) {
            if (got++ === 0) sink.status({ connected: true, message: `${this.description}: receiving` });
            const obs = this.nav ? rawToObs(e) : undefined;
            const gpsTime = obs?.time ?? e.gpsTime ?? (e.time && e.time.length > 12 ? utcToGps(Date.parse(e.time)) : undefined);
            if (gpsTime === undefined || !Number.isFinite(gpsTime)) continue;
            sink.epoch({ obs, receiver: e, gpsTime, agcPercent: e.agcPercent, nav: first && obs ? this.nav : undefined });
            if (obs) first = false;
          }
          if (!abort.signal.aborted) sink.status({ connected: false, message: `${this.description}: connection closed` });
        } catch (err) {
          if (!abort.signal.aborted) sink.status({ connected: false, message: `${this.description}: ${err instanceof Error ? err.message : String(err)}` });
        }
        if (abort.signal.aborted) break;
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, this.options.retryMs ?? 2000);
          t.unref();
          abort.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    })();
  }

  async stop(): Promise<void> {
    this.abort?.abort();
    await this.running;
    this.running = undefined;
  }
}
