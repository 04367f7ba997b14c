// Constellation simulator: synthesises pseudorange, carrier phase, Doppler and C/N0 for a site from real broadcast orbits.
import { CLIGHT, LAMBDA_L1, OMEGA_E } from '../constants.ts';
import { klobuchar, saastamoinen } from '../atmosphere.ts';
import { clockProcessNoise, OSCILLATORS, type OscillatorClass } from '../clock.ts';
import { EphemerisStore, satelliteState } from '../ephemeris/select.ts';
import type { NavData } from '../ephemeris/types.ts';
import { azEl, enuToEcef, geodeticToEcef, RAD, type Geodetic, type Vec3 } from '../geodesy.ts';
import type { ObsEpoch, SatObservation } from '../rinex/obs.ts';
import { expectedCn0 } from '../spoofing/signal-power.ts';
import { gpsWeekTow, utcToGps } from '../time.ts';
import { loadDefaultNav, retime, type RetimedConstellation } from './constellation.ts';
import { Rng } from './random.ts';
import { isActive, type Scenario } from './scenarios.ts';

export interface SimulatorConfig {
  /** Site latitude and longitude (degrees) and height above the ellipsoid (m). */
  site: { lat: number; lon: number; height: number };
  seed?: number;
  /** Epoch interval, seconds (default 1). */
  interval?: number;
  /** GPS start time (s); default: now. */
  startGps?: number;
  oscillator?: OscillatorClass;
  /** Zenith one-sigma code noise and multipath, metres (default 0.3 and 0.4); both grow at low elevation. */
  codeNoiseM?: number;
  multipathM?: number;
  /** Satellites below this elevation are not tracked, degrees (default 5). */
  trackingMaskDeg?: number;
  scenarios?: Scenario[];
  /** Navigation data to propagate; default the shipped broadcast file. */
  nav?: NavData;
}

export interface SimEpoch {
  obs: ObsEpoch;
  /** True GPS time, position and receiver clock (offset s, drift s/s). */
  trueTime: number;
  truePosition: Vec3;
  trueClock: { offset: number; drift: number };
  /** Elevation (radians) per tracked satellite, as a receiver reports it. */
  elevations: Map<string, number>;
  /** One-sigma error of each generated pseudorange the receiver cannot model (noise, multipath, atmosphere residual), m. */
  errorSigmas: Map<string, number>;
  agcPercent: number;
  /** Scenarios active at this epoch. */
  active: Scenario['kind'][];
  elapsed: number;
}

interface SatTrack {
  ambiguity: number;
  cn0Offset: number;
  ionoScale: number;
  tropoScale: number;
  multipath: number;
  /** Carrier phase offset (cycles) that keeps the phase continuous when a spoofer takes over. */
  phaseAlign?: number;
}

const AGC_BASELINE = 50;

/**
 * Generates one epoch at a time. Each satellite's signal is computed at its true transmission
 * time from the re-timed ephemeris: geometric range with Earth rotation, satellite clock and
 * relativity, group delay, ionosphere (Klobuchar scaled per satellite, so that the receiver's
 * model leaves a residual), troposphere, receiver clock (two-state oscillator model), code
 * noise and Gauss-Markov multipath growing at low elevation. Scenarios then alter the signals.
 *
 * @example
 * const sim = new ConstellationSimulator({ site: { lat: 37.4165, lon: -122.2042, height: 64 }, seed: 1 });
 * const { obs } = sim.step();
 * solveSpp(obs.time, prepareEpoch(obs, new EphemerisStore(sim.nav.ephemerides)).measurements, { iono: sim.nav.iono });
 */
export class ConstellationSimulator {
  readonly config: Required<Omit<SimulatorConfig, 'nav' | 'startGps'>>;
  readonly site: Geodetic;
  readonly sitePosition: Vec3;
  readonly startGps: number;
  private constellation: RetimedConstellation;
  private store: EphemerisStore;
  private readonly baseNav: NavData;
  private readonly rng: Rng;
  private readonly tracks = new Map<string, SatTrack>();
  private clock: { offset: number; drift: number };
  private elapsed = 0;
  private readonly spooferTimeError: number;

  constructor(config: SimulatorConfig) {
    this.config = {
      site: config.site,
      seed: config.seed ?? 1,
      interval: config.interval ?? 1,
      oscillator: config.oscillator ?? 'OCXO',
      codeNoiseM: config.codeNoiseM ?? 0.3,
      multipathM: config.multipathM ?? 0.4,
      trackingMaskDeg: config.trackingMaskDeg ?? 5,
      scenarios: config.scenarios ?? [],
    };
    this.rng = new Rng(this.config.seed);
    this.site = { lat: config.site.lat * RAD, lon: config.site.lon * RAD, height: config.site.height };
    this.sitePosition = geodeticToEcef(this.site);
    this.startGps = config.startGps ?? utcToGps(Date.now());
    this.baseNav = config.nav ?? loadDefaultNav();
    this.constellation = retime(this.baseNav, this.startGps, 1800);
    this.store = new EphemerisStore(this.constellation.nav.ephemerides);
    const osc = OSCILLATORS[this.config.oscillator];
    this.clock = { offset: this.rng.normal() * 100e-9, drift: this.rng.normal() * osc.initialDrift * 0.1 };
    // A spoofer cannot know the receiver's clock exactly: its time is off by tens of ns.
    this.spooferTimeError = this.rng.normal() * 30e-9;
  }

  /** The re-timed navigation data the simulated receiver decodes from the signals. */
  get nav(): NavData {
    return this.constellation.nav;
  }

  /** Advances to the next epoch and returns its observations. */
  step(): SimEpoch {
    const elapsed = this.elapsed;
    const t = this.startGps + elapsed;
    if (t >= this.constellation.validUntil - 600) {
      // Beyond the file's window: re-time again (satellites jump to another part of the sky).
      this.constellation = retime(this.baseNav, t, 1800);
      this.store = new EphemerisStore(this.constellation.nav.ephemerides);
      this.tracks.clear();
    }
    const active = this.config.scenarios.filter((s) => isActive(s, elapsed));
    const epoch = this.generate(t, elapsed, active);
    this.advanceClock(this.config.interval);
    this.elapsed += this.config.interval;
    return epoch;
  }

  private advanceClock(dt: number): void {
    const q = clockProcessNoise(this.config.oscillator, dt);
    // Sample the correlated (offset, drift) process noise through its Cholesky factor.
    const l11 = Math.sqrt(q[0][0]);
    const l21 = q[1][0] / l11;
    const l22 = Math.sqrt(Math.max(q[1][1] - l21 * l21, 0));
    const w1 = this.rng.normal();
    const w2 = this.rng.normal();
    this.clock = {
      offset: this.clock.offset + this.clock.drift * dt + l11 * w1,
      drift: this.clock.drift + l21 * w1 + l22 * w2,
    };
  }

  private generate(t: number, elapsed: number, active: Scenario[]): SimEpoch {
    const cfg = this.config;
    const truth = this.sitePosition;
    const { tow } = gpsWeekTow(t);
    const b = this.clock.offset;
    const bdot = this.clock.drift;
    const loss = active.some((s) => s.kind === 'signal_loss');
    const jam = active.find((s): s is Extract<Scenario, { kind: 'jamming' }> => s.kind === 'jamming');
    const spoofPos = active.find((s): s is Extract<Scenario, { kind: 'spoofer_position' }> => s.kind === 'spoofer_position');
    const spoofTime = active.find((s): s is Extract<Scenario, { kind: 'spoofer_time' }> => s.kind === 'spoofer_time');
    const spoofer = spoofPos ?? spoofTime;
    let agc = AGC_BASELINE + this.rng.normal() * 1;
    if (jam) agc -= jam.jsDb * 1.2;
    if (spoofer?.power === 'overpowered') agc -= (spoofer.excessDb ?? 10) * 1.5;
    const sats: SatObservation[] = [];
    const elevations = new Map<string, number>();
    const errorSigmas = new Map<string, number>();
    // Where the signals claim the receiver is, and the time offset they impose.
    let claimed = truth;
    let timeShift = 0;
    if (spoofPos) {
      const dt = elapsed - spoofPos.start;
      const d = spoofPos.driftMps ?? [0, 0, 0];
      claimed = add(truth, enuToEcef([spoofPos.offsetEnu[0] + d[0] * dt, spoofPos.offsetEnu[1] + d[1] * dt, spoofPos.offsetEnu[2] + d[2] * dt], this.site));
      timeShift = this.spooferTimeError;
    }
    if (spoofTime) timeShift = this.spooferTimeError + (spoofTime.offsetNs + (spoofTime.rateNsPerS ?? 0) * (elapsed - spoofTime.start)) * 1e-9;
    const claimedVel: Vec3 = spoofPos?.driftMps ? enuToEcef(spoofPos.driftMps, this.site) : [0, 0, 0];
    const claimedRate = spoofTime ? (spoofTime.rateNsPerS ?? 0) * 1e-9 : 0;
    const visible = new Set<string>();
    for (const sat of this.store.satellites()) {
      const eph = this.store.select(sat, t);
      if (!eph) continue;
      const genuine = this.signal(eph, t, truth, [0, 0, 0]);
      if (!genuine || genuine.el < cfg.trackingMaskDeg * RAD) continue;
      visible.add(sat);
      let track = this.tracks.get(sat);
      if (!track) {
        track = {
          ambiguity: Math.round(this.rng.normal() * 1e6),
          cn0Offset: this.rng.normal() * 1.5,
          ionoScale: 1 + this.rng.normal() * 0.15,
          tropoScale: 1 + this.rng.normal() * 0.02,
          multipath: 0,
        };
        this.tracks.set(sat, track);
      }
      const sinEl = Math.sin(genuine.el);
      const a = Math.exp(-cfg.interval / 60);
      track.multipath = a * track.multipath + Math.sqrt(1 - a * a) * (cfg.multipathM / sinEl) * this.rng.normal();
      // The ionosphere departs from the broadcast model by about 15 %, wandering over minutes.
      const ai = Math.exp(-cfg.interval / 300);
      track.ionoScale = 1 + ai * (track.ionoScale - 1) + Math.sqrt(1 - ai * ai) * 0.15 * this.rng.normal();
      let cn0 = expectedCn0(genuine.el) + track.cn0Offset + this.rng.normal() * 0.4;
      const s = spoofer ? this.signal(eph, t, claimed, claimedVel) ?? genuine : genuine;
      if (spoofer?.power === 'overpowered') cn0 = expectedCn0(Math.PI / 2) + (spoofer.excessDb ?? 10) + this.rng.normal() * 0.3;
      if (jam) cn0 -= Math.max(0, jam.jsDb - 12);
      if (loss || cn0 < 25) {
        track.phaseAlign = undefined;
        continue;
      }
      const noiseScale = 10 ** ((expectedCn0(genuine.el) - cn0) / 20);
      const ionoTrue = klobuchar(this.nav.iono, this.site, s.az, s.el, tow) * track.ionoScale;
      const tropoTrue = saastamoinen(this.site, s.el) * track.tropoScale;
      const clockTerm = CLIGHT * (b + timeShift - s.satClock);
      const code =
        s.range + clockTerm + ionoTrue + tropoTrue + CLIGHT * (eph.kind === 'kepler' ? eph.tgd : 0) + track.multipath + (cfg.codeNoiseM / Math.sqrt(sinEl)) * noiseScale * this.rng.normal();
      let phase = (s.range + clockTerm - ionoTrue + tropoTrue) / LAMBDA_L1 + track.ambiguity + 0.01 * this.rng.normal();
      if (spoofer) {
        // Carrier-aligned capture: the spoofer matches the genuine phase at onset, then moves it with its own geometry.
        const genuinePhase = (genuine.range + CLIGHT * (b - genuine.satClock) - ionoTrue + tropoTrue) / LAMBDA_L1 + track.ambiguity;
        if (track.phaseAlign === undefined) track.phaseAlign = genuinePhase - phase;
        phase += track.phaseAlign;
      } else track.phaseAlign = undefined;
      const doppler = -(s.rangeRate + CLIGHT * (bdot + claimedRate - s.satClockDrift)) / LAMBDA_L1 + 0.05 * noiseScale * this.rng.normal();
      const fault = active.find((f): f is Extract<Scenario, { kind: 'satellite_fault' }> => f.kind === 'satellite_fault' && f.sat === sat);
      const faultM = fault ? fault.biasM + (fault.rampMps ?? 0) * (elapsed - fault.start) : 0;
      elevations.set(sat, s.el);
      const ionoModel = klobuchar(this.nav.iono, this.site, s.az, s.el, tow);
      errorSigmas.set(
        sat,
        Math.hypot((cfg.codeNoiseM / Math.sqrt(sinEl)) * noiseScale, cfg.multipathM / sinEl, 0.15 * ionoModel, 0.02 * tropoTrue),
      );
      sats.push({
        sat,
        pseudorange: code + faultM,
        carrierPhase: phase + faultM / LAMBDA_L1,
        doppler: doppler - (fault?.rampMps ?? 0) / LAMBDA_L1,
        cn0: Math.round(cn0 * 4) / 4,
        code: 'C1C',
      });
    }
    for (const sat of [...this.tracks.keys()]) if (!visible.has(sat)) this.tracks.delete(sat);
    return {
      obs: { time: t + b, sats },
      trueTime: t,
      truePosition: truth,
      trueClock: { offset: b, drift: bdot },
      elevations,
      errorSigmas,
      agcPercent: Math.max(0, Math.min(100, agc)),
      active: active.map((s) => s.kind),
      elapsed,
    };
  }

  /** Geometry of one satellite's signal received at true time t by a receiver at `rcv` moving at `vel`. */
  private signal(eph: Parameters<typeof satelliteState>[0], t: number, rcv: Vec3, vel: Vec3) {
    let tau = 0.075;
    let st = satelliteState(eph, t - tau);
    let range = 0;
    for (let k = 0; k < 3; k++) {
      st = satelliteState(eph, t - tau);
      const d: Vec3 = [st.pos[0] - rcv[0], st.pos[1] - rcv[1], st.pos[2] - rcv[2]];
      range = Math.hypot(d[0], d[1], d[2]) + (OMEGA_E * (st.pos[0] * rcv[1] - st.pos[1] * rcv[0])) / CLIGHT;
      tau = range / CLIGHT;
    }
    const { az, el } = azEl(rcv, this.site, st.pos);
    const d: Vec3 = [st.pos[0] - rcv[0], st.pos[1] - rcv[1], st.pos[2] - rcv[2]];
    const n = Math.hypot(d[0], d[1], d[2]);
    const u: Vec3 = [d[0] / n, d[1] / n, d[2] / n];
    const rangeRate =
      u[0] * (st.vel[0] - vel[0]) + u[1] * (st.vel[1] - vel[1]) + u[2] * (st.vel[2] - vel[2]) + (OMEGA_E * (st.vel[0] * rcv[1] - st.vel[1] * rcv[0])) / CLIGHT;
    return { range, rangeRate, az, el, satClock: st.clock, satClockDrift: st.clockDrift };
  }
}

function add(a: Vec3, b: Vec3): Vec3 {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}
