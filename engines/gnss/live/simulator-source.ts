// The built-in constellation simulator as a live source: one epoch per interval, advancing with the wall clock.
import { ConstellationSimulator } from '../simulator/simulator.ts';
import { gpsGalileoNav } from '../simulator/galileo.ts';
import type { Scenario } from '../simulator/scenarios.ts';
import type { OscillatorClass } from '../clock.ts';
import { utcToGps } from '../time.ts';
import type { LiveSink, LiveSource, OperatorScenario } from './source.ts';

export interface SimulatorSourceOptions {
  site: { lat: number; lon: number; height: number };
  /** Simulated seconds per wall-clock second (default 1: real time). */
  rate?: number;
  /** Seconds between epochs (default 1). */
  interval?: number;
  seed?: number;
  oscillator?: OscillatorClass;
  /** Wall clock in ms (default Date.now); the simulation starts at its present GPS time. */
  now?: () => number;
}

/**
 * What each operator scenario does to the signals, from the moment it is switched on:
 * `spoofing` an overpowered transmitter pulls the position 500 m east and 300 m north and
 * walks it away at 2 m/s; `jamming` broadband interference at 30 dB J/S; `signal-loss` no
 * signal at all (antenna cut). `clear` ends whatever is active.
 */
export function operatorScenario(name: Exclude<OperatorScenario, 'clear'>, start: number): Scenario {
  switch (name) {
    case 'spoofing':
      return { kind: 'spoofer_position', start, offsetEnu: [500, 300, 0], driftMps: [2, 1, 0], power: 'overpowered', excessDb: 10 };
    case 'jamming':
      return { kind: 'jamming', start, jsDb: 30 };
    case 'signal-loss':
      return { kind: 'signal_loss', start };
  }
}

export class SimulatorSource implements LiveSource {
  readonly kind = 'simulator' as const;
  readonly description: string;
  readonly intervalS: number;
  readonly rate: number;
  private readonly sim: ConstellationSimulator;
  private readonly now: () => number;
  private timer?: NodeJS.Timeout;
  private startWall = 0;
  private produced = 0;
  private active: OperatorScenario = 'clear';
  private sentNav?: unknown;

  constructor(options: SimulatorSourceOptions) {
    this.rate = options.rate ?? 1;
    this.intervalS = options.interval ?? 1;
    this.now = options.now ?? Date.now;
    const { lat, lon, height } = options.site;
    this.description = `simulator at ${lat},${lon},${height} (GPS + Galileo${this.rate === 1 ? '' : `, ${this.rate}x real time`})`;
    this.sim = new ConstellationSimulator({
      site: options.site,
      seed: options.seed,
      interval: this.intervalS,
      oscillator: options.oscillator ?? 'OCXO',
      nav: gpsGalileoNav(),
      startGps: utcToGps(this.now()),
    });
  }

  /** The scenario the operator last switched on (`clear` when none). */
  get scenario(): OperatorScenario {
    return this.active;
  }

  /** Switches a scenario on from the next epoch; `clear` ends every active one. */
  setScenario(name: OperatorScenario): void {
    const elapsed = this.produced * this.intervalS;
    for (const s of this.sim.config.scenarios) if (s.end === undefined || s.end > elapsed) s.end = Math.max(elapsed, s.start + this.intervalS);
    if (name !== 'clear') this.sim.config.scenarios.push(operatorScenario(name, elapsed));
    this.active = name;
  }

  start(sink: LiveSink): void {
    if (this.timer) return;
    this.startWall = this.now();
    sink.status({ connected: true, message: this.description });
    const tick = () => {
      const due = Math.floor(((this.now() - this.startWall) / 1000) * (this.rate / this.intervalS)) + 1;
      // Catch up after a stall, but never by more than a burst (the time is the simulation's, not lost).
      for (let k = 0; this.produced < due && k < 20; k++) {
        const e = this.sim.step();
        this.produced++;
        // The navigation data the receiver decodes: sent again whenever the simulator re-times its constellation.
        const nav = this.sim.nav !== this.sentNav ? this.sim.nav : undefined;
        this.sentNav = this.sim.nav;
        sink.epoch({ obs: e.obs, gpsTime: e.obs.time, agcPercent: e.agcPercent, nav });
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
