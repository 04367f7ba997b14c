/**
 * The live receiver inside the service: one source (simulator, gpsd or a replayed log) feeds
 * epochs, each is solved as it arrives (engine: RAIM, Doppler velocity, spoofing checks, clock
 * filter; or the receiver's own fix), and the latest solution is kept for the routes. A silent
 * source counts as lost: the receiver then keeps solving empty epochs at the source's pace, so
 * the engine holds over exactly as for a loss of signal, and leaves holdover when data returns.
 * Spoofing events and holdover periods are written to the database as they open and close.
 */
import { setPositioning } from '../../platform/observability/families.ts';
import {
  EphemerisStore,
  GnssEngine,
  prepareEpoch,
  type EngineOptions,
  type NavData,
  type OscillatorClass,
  type SpoofingEvent,
} from '../../engines/gnss/index.ts';
import { anomalyModelFor } from './anomaly-model.ts';
import { gpsToUnixMs, utcToGps } from '../../engines/gnss/time.ts';
import type { LiveEpoch, LiveSource } from '../../engines/gnss/live/source.ts';
import type { ServiceContext } from '../../platform/service.ts';
import { ClockHistory } from './calibration.ts';
import { engineSolution, receiverSolution, type Solution } from './solution.ts';
import { newId } from './ids.ts';

/** A previous leader's open event is taken over by an event this receiver detects within its first this many epochs. */
const ADOPT_EPOCHS = 60;

export interface ReceiverOptions {
  oscillator: OscillatorClass;
  /** Clean simulated epochs of the anomaly model (0: the ml_anomaly check stays unavailable); the default count's fit is stored (anomaly-model.ts). */
  anomalyEpochs: number;
  /** A source silent for this many epoch intervals counts as lost. */
  silenceIntervals: number;
}

interface Waiter {
  afterSeq: number;
  resolve: (s: Solution | null) => void;
  timer: NodeJS.Timeout;
}

export class NavReceiver {
  readonly clockHistory = new ClockHistory();
  private engine?: GnssEngine;
  private store?: EphemerisStore;
  private readonly engineOptions: EngineOptions;
  private seq = 0;
  private latestSolution?: Solution;
  /** The data part of GET /position/latest without age_ms, serialised once per epoch. */
  private latestJson: string | null = null;
  private lastEpochWall = 0;
  private lastGps?: number;
  private connected = false;
  private statusMessage = 'starting';
  private watchdog?: NodeJS.Timeout;
  private waiters: Waiter[] = [];
  private writes: Promise<void> = Promise.resolve();
  private readonly eventIds = new WeakMap<SpoofingEvent, { id: string; written: string }>();
  private holdoverRow?: { id: string; engineIndex: number };
  /** An ended holdover whose recovery error the engine had not measured yet when it was written. */
  private unjudgedRow?: { id: string; period: { errorNs?: number; predictedSigmaNs?: number } };
  private lastHoldover = false;
  /** Open events of a previous leader, to be taken over (loadOpenHistory), up to which epoch of this receiver. */
  private adoptable: string[] = [];
  private adoptThroughEpoch = 0;
  /** Epochs this receiver has published. */
  private epochsSeen = 0;
  private recentSolutions: Solution[] = [];
  /** Wall-clock ms from an epoch's arrival to its verdict, of the last epoch. */
  lastProcessingMs = 0;

  constructor(
    private readonly ctx: ServiceContext,
    readonly source: LiveSource,
    private readonly options: ReceiverOptions,
    private readonly log: (msg: string) => void,
  ) {
    // Positions come from the carrier-smoothed Kalman filter; `moving` because a live source may
    // be anywhere, and a static model on a moving antenna would lag it (`spp` is the per-epoch option).
    this.engineOptions = { nav: { ephemerides: [] }, oscillator: options.oscillator, agcBaselinePercent: 50, positioning: 'kalman', dynamics: 'moving' };
  }

  /**
   * Starts the source. A process that takes over from a leader that died first reads what that
   * leader left open, so that one attack is one event in the history (adoptOpenEvent).
   */
  async start(): Promise<void> {
    await this.loadOpenHistory().catch((err: unknown) => this.log(`nav: could not read the open history: ${err instanceof Error ? err.message : String(err)}`));
    if (this.options.anomalyEpochs > 0) this.engineOptions.anomalyModel = anomalyModelFor(this.options.anomalyEpochs);
    this.source.start({ epoch: (e) => this.onEpoch(e, Date.now()), status: (s) => this.onStatus(s.connected, s.message) });
    const intervalMs = Math.max(5, (1000 * this.source.intervalS) / this.source.rate);
    this.watchdog = setInterval(() => this.checkSilence(), intervalMs);
    this.watchdog.unref();
  }

  async stop(): Promise<void> {
    if (this.watchdog) clearInterval(this.watchdog);
    await this.source.stop();
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.resolve(null);
    }
    this.waiters = [];
    await this.writes;
  }

  get latest(): Solution | undefined {
    return this.latestSolution;
  }

  get gnssEngine(): GnssEngine | undefined {
    return this.engine;
  }

  get sourceStatus(): { connected: boolean; message: string; kind: string; description: string; last_epoch_age_ms: number | null } {
    return {
      connected: this.connected,
      message: this.statusMessage,
      kind: this.source.kind,
      description: this.source.description,
      last_epoch_age_ms: this.lastEpochWall ? Date.now() - this.lastEpochWall : null,
    };
  }

  /** Solutions of the last epochs (newest last), for analyses over a window. */
  get recent(): readonly Solution[] {
    return this.recentSolutions;
  }

  /** `{"position":{...},"timestamp_ms":...}` data of /position/latest, prepared when the epoch was solved. */
  latestPositionJson(): string | null {
    return this.latestJson;
  }

  /** The receiver's present GPS time: the last epoch's time tag advanced by the wall clock at the source's rate. */
  nowGps(): number {
    if (this.lastGps === undefined) return utcToGps(Date.now());
    return this.lastGps + ((Date.now() - this.lastEpochWall) / 1000) * this.source.rate;
  }

  /** Waits for the next solved epoch after `seq` (null on timeout). */
  nextSolution(afterSeq: number, timeoutMs: number): Promise<Solution | null> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        afterSeq,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(null);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Resolves once every database write queued so far is done (tests, shutdown). */
  flush(): Promise<void> {
    return this.writes;
  }

  private onStatus(connected: boolean, message: string): void {
    this.connected = connected;
    this.statusMessage = message;
    this.log(`nav source: ${message}`);
  }

  private setNav(nav: NavData): void {
    this.engineOptions.nav = nav;
    if (!this.engine) this.engine = new GnssEngine(this.engineOptions);
    else this.engine.setNav(nav);
    this.store = new EphemerisStore(nav.ephemerides);
  }

  private onEpoch(e: LiveEpoch, arrivedAt: number): void {
    if (this.lastGps !== undefined && e.gpsTime < this.lastGps - 1) {
      // The log started again from its beginning: start the engine afresh (its filters assume time moves forward).
      this.engine = undefined;
      if (this.engineOptions.nav.ephemerides.length) this.setNav(this.engineOptions.nav);
    }
    this.lastEpochWall = arrivedAt;
    this.lastGps = e.gpsTime;
    if (!this.connected) this.onStatus(true, `${this.source.description}: receiving`);
    if (e.nav) this.setNav(e.nav);
    this.solve(e, arrivedAt);
  }

  private solve(e: LiveEpoch, arrivedAt: number): void {
    let solution: Solution;
    if (e.obs && this.engine && this.store) {
      const a = this.engine.process(e.obs, { agcPercent: e.agcPercent });
      const { measurements } = prepareEpoch(e.obs, this.store);
      solution = engineSolution(++this.seq, a, measurements, arrivedAt);
      if (a.fix && !a.clock.holdover) {
        const bias = a.fix.clockBias.GPS ?? Object.values(a.fix.clockBias)[0] ?? 0;
        this.clockHistory.add(a.time, bias / 299792458, Math.max(a.fix.dop.tdop, 0.5) / 299792458);
      }
    } else if (e.receiver) {
      const fix = e.receiver.mode >= 2 && e.receiver.lat !== undefined;
      solution = receiverSolution(++this.seq, e.receiver, e.gpsTime, arrivedAt, !fix);
    } else {
      solution = receiverSolution(++this.seq, { source: 'gpsd', mode: 1, satellites: [], raw: [] }, e.gpsTime, arrivedAt, true);
    }
    this.publish(solution);
  }

  private publish(s: Solution): void {
    this.latestSolution = s;
    setPositioning({ fix: s.position !== null, satellitesUsed: s.integrity.satellites_used, spoofing: s.integrity.spoofing_detected, holdover: s.holdover, at: new Date(s.solvedAt) });
    this.lastProcessingMs = s.solvedAt - s.receivedAt;
    this.latestJson = s.position
      ? JSON.stringify({ latitude: s.position.latitude, longitude: s.position.longitude, altitude: s.position.altitude, timestamp: s.position.timestamp })
      : null;
    this.recentSolutions.push(s);
    if (this.recentSolutions.length > 120) this.recentSolutions.shift();
    this.recordEvents(s);
    const ready = this.waiters.filter((w) => s.seq > w.afterSeq);
    this.waiters = this.waiters.filter((w) => s.seq <= w.afterSeq);
    for (const w of ready) {
      clearTimeout(w.timer);
      w.resolve(s);
    }
  }

  /** A source silent for longer than it should be is lost: solve empty epochs at its pace (holdover). */
  private checkSilence(): void {
    if (!this.lastEpochWall) return;
    const intervalMs = (1000 * this.source.intervalS) / this.source.rate;
    const silentMs = Date.now() - this.lastEpochWall;
    if (silentMs < Math.max(this.options.silenceIntervals * intervalMs, 50)) return;
    if (this.connected) this.onStatus(false, `${this.source.description}: no data for ${silentMs} ms`);
    const gps = this.nowGps();
    const last = this.latestSolution?.gpsTime ?? gps - this.source.intervalS;
    if (gps - last < this.source.intervalS * 0.99) return;
    const t = last + this.source.intervalS;
    if (this.engine) this.solve({ obs: { time: t, sats: [] }, gpsTime: t }, Date.now());
    else this.solve({ gpsTime: t }, Date.now());
  }

  /**
   * Events a previous leader of this source left open (it stopped or died mid-event) are taken
   * over by the first events this receiver detects within its next ADOPT_EPOCHS epochs; those still
   * unclaimed then are closed as of when they were last seen. Open holdover periods end now:
   * this receiver starts its own.
   */
  private async loadOpenHistory(): Promise<void> {
    const source = this.source.description;
    const rows = await this.ctx.db.query<{ event_id: string }>(
      'SELECT event_id FROM nav_spoofing_events WHERE resolved_at IS NULL AND source = $1 ORDER BY started_at DESC',
      [source],
    );
    this.adoptable = rows.map((r) => r.event_id);
    // Counted in epochs, not wall time: a loaded machine that takes long to start the engine or
    // to solve its first epochs must not close the attack it is about to see again.
    this.adoptThroughEpoch = this.epochsSeen + ADOPT_EPOCHS;
    await this.ctx.db.query('UPDATE nav_holdovers SET ended_at = now() WHERE ended_at IS NULL AND source = $1', [source]);
  }

  private adoptOpenEvent(): string | undefined {
    return this.epochsSeen <= this.adoptThroughEpoch ? this.adoptable.shift() : undefined;
  }

  private closeUnclaimedEvents(): void {
    if (this.adoptable.length === 0 || this.epochsSeen <= this.adoptThroughEpoch) return;
    const ids = this.adoptable;
    this.adoptable = [];
    this.queue(() => this.ctx.db.query('UPDATE nav_spoofing_events SET resolved_at = last_at WHERE event_id = ANY($1) AND resolved_at IS NULL', [ids]));
  }

  private queue(write: () => Promise<unknown>): void {
    this.writes = this.writes.then(write).then(
      () => undefined,
      (err: unknown) => this.log(`nav: a database write failed: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  private recordEvents(s: Solution): void {
    this.epochsSeen++;
    this.closeUnclaimedEvents();
    const sourceName = this.source.description;
    const engine = this.engine;
    if (engine && s.solver === 'engine') {
      const events = engine.history.events;
      for (const ev of events.slice(-2)) {
        const known = this.eventIds.get(ev);
        // Written again when its status, checks or resolution change, and every 10 s of its duration.
        const state = `${ev.status}|${ev.checks.join(',')}|${ev.resolved}|${Math.floor((ev.last - ev.start) / 10)}`;
        if (known && known.written === state) continue;
        const id = known?.id ?? this.adoptOpenEvent() ?? newId('spf');
        this.eventIds.set(ev, { id, written: state });
        const row = [
          id,
          new Date(gpsToUnixMs(ev.start)),
          new Date(gpsToUnixMs(ev.last)),
          ev.resolved ? new Date(gpsToUnixMs(s.gpsTime)) : null,
          ev.status,
          ev.threatType,
          ev.checks.join(','),
          sourceName,
        ];
        this.queue(() =>
          this.ctx.db.query(
            `INSERT INTO nav_spoofing_events (event_id, started_at, last_at, resolved_at, status, threat_type, checks, source)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (event_id) DO UPDATE SET last_at = EXCLUDED.last_at, resolved_at = EXCLUDED.resolved_at,
               status = EXCLUDED.status, threat_type = EXCLUDED.threat_type, checks = EXCLUDED.checks`,
            row,
          ),
        );
      }
    }
    if (this.unjudgedRow?.period.errorNs !== undefined) {
      const { id, period } = this.unjudgedRow;
      this.unjudgedRow = undefined;
      this.queue(() => this.ctx.db.query('UPDATE nav_holdovers SET error_ns = $2, predicted_sigma_ns = $3 WHERE holdover_id = $1', [id, period.errorNs, period.predictedSigmaNs ?? null]));
    }
    if (s.holdover !== this.lastHoldover) {
      this.lastHoldover = s.holdover;
      const at = new Date(gpsToUnixMs(s.gpsTime));
      if (s.holdover) {
        const id = newId('hld');
        this.holdoverRow = { id, engineIndex: engine ? engine.holdovers.length - 1 : -1 };
        const reason = !this.connected ? 'source lost' : !s.position ? `no fix: ${s.noFixReason ?? 'no signal'}` : 'signals under suspicion (spoofing or interference event open)';
        this.queue(() =>
          this.ctx.db.query('INSERT INTO nav_holdovers (holdover_id, started_at, reason, source) VALUES ($1, $2, $3, $4)', [id, at, reason, sourceName]),
        );
      } else if (this.holdoverRow) {
        const row = this.holdoverRow;
        this.holdoverRow = undefined;
        const period = engine && row.engineIndex >= 0 ? engine.holdovers[engine.holdovers.length - 1] : undefined;
        if (period && period.errorNs === undefined) this.unjudgedRow = { id: row.id, period };
        this.queue(() =>
          this.ctx.db.query('UPDATE nav_holdovers SET ended_at = $2, error_ns = $3, predicted_sigma_ns = $4 WHERE holdover_id = $1', [
            row.id,
            at,
            period?.errorNs ?? null,
            period?.predictedSigmaNs ?? null,
          ]),
        );
      }
    }
  }
}
