// Extended Kalman filter over receiver position, velocity, clock bias and drift, and inter-system biases.
import { ionoScale, klobuchar, saastamoinen } from './atmosphere.ts';
import { clockProcessNoise, OSCILLATORS, type OscillatorClass } from './clock.ts';
import { chi2Quantile } from './chi2.ts';
import { CLIGHT, type Constellation } from './constants.ts';
import type { IonoCoefficients } from './ephemeris/types.ts';
import { azEl, ecefToGeodetic, enuMatrix, RAD, type Geodetic, type Vec3 } from './geodesy.ts';
import type { SatMeasurement } from './measurements.ts';
import { geometricRange, pseudorangeVariance, type SppFix } from './spp.ts';
import { gpsWeekTow } from './time.ts';
import { multiply, transpose, zeros } from './linalg.ts';

/**
 * How the receiver may move between epochs. `static`: the antenna stays put (a surveyed
 * reference station, a timing receiver); position is a constant and velocity zero. `moving`:
 * white-noise acceleration of the given power spectral density.
 */
export type Dynamics = 'static' | 'moving';

export interface KalmanOptions {
  /** The motion model; required, because a static model on a moving receiver is wrong, not just noisy. */
  dynamics: Dynamics;
  /**
   * Acceleration power spectral density of the moving model, m^2/s^3 per axis (default 1:
   * Groves, Principles of GNSS, Inertial and Multisensor Integrated Navigation Systems, 2nd ed.,
   * section 9.4.2.2, gives about 1 for a pedestrian or ship, 10 for a car, 100 for an aircraft).
   */
  accelerationPsd?: number;
  /** Receiver oscillator, for the clock's process noise (default TCXO, the usual receiver oscillator). */
  oscillator?: OscillatorClass;
  /** Satellites below this elevation are not used, degrees (default 10, as single-point). */
  elevationMaskDeg?: number;
  iono?: IonoCoefficients;
  /** False-alarm probability of the innovation gate per measurement (default 1e-5, the RAIM value). */
  pfa?: number;
  /** Run backwards in time (epochs fed newest first), for a forward-backward combined solution. */
  backward?: boolean;
  /**
   * Correlation time of each satellite's pseudorange error other than receiver noise (broadcast
   * orbit and clock, ionosphere and troposphere residuals), seconds: a first-order Gauss-Markov
   * state per satellite with the error model's variance of those terms. Default 3600 (broadcast
   * sets are fitted over 4 h and replaced every 2 h, so their error holds for about an hour);
   * 0 treats every epoch's error as independent.
   */
  errorCorrelationS?: number;
  /**
   * One-sigma share of the broadcast (Klobuchar) ionospheric delay the model misses, carried by
   * one state for all satellites: the delay used is the model's times (1 + s), s a first-order
   * Gauss-Markov process with this sigma and `errorCorrelationS`. Default 0.5: the model removes
   * about 50 % of the ionospheric delay's RMS (Klobuchar, IEEE Transactions on Aerospace and
   * Electronic Systems 23(3), 1987). The error of a broadcast ionosphere is mostly in the
   * vertical content it assumes over the whole sky, so it is common to every satellite in
   * proportion to its delay, not independent per satellite; 0 leaves it out.
   */
  klobucharErrorShare?: number;
}

export interface KalmanFix {
  fix: true;
  time: number;
  position: Vec3;
  geodetic: Geodetic;
  velocity: Vec3;
  /** Receiver clock bias per constellation (reference clock plus its inter-system bias), metres. */
  clockBias: Partial<Record<Constellation, number>>;
  clockDrift: number;
  /** One-sigma east, north, up from the filter covariance, metres. */
  sigmaEnu: Vec3;
  /** Covariance of the ECEF position, m^2. */
  covariance: number[][];
  /** Satellites whose pseudorange updated the state this epoch. */
  used: string[];
  /** Satellites whose innovation failed the gate (left out this epoch). */
  rejected: string[];
  /** Post-update residuals, metres. */
  residuals: { sat: string; residual: number; sigma: number }[];
  /** Set on the epoch the filter (re)started from a single-point fix, with why. */
  initialised?: string;
  dynamics: Dynamics;
}

type Mat = number[][];

const POS = 0;
const VEL = 3;
const CLK = 6;
const DRIFT = 7;
const BASE = 8;

/**
 * Position-velocity-clock filter on (carrier-smoothed) pseudoranges and Doppler. It starts from
 * a single-point fix, predicts with the chosen motion model and the oscillator's clock noise,
 * gates each innovation with a chi-square test, re-initialises the clock on a receiver clock
 * step, and restarts from the single-point fix when most measurements disagree with it (the
 * receiver moved under a static model, or the filter diverged) — never silently.
 *
 * @example
 * const kf = new PositionFilter({ dynamics: 'static', iono: nav.iono });
 * const out = kf.update(time, measurements, sppFix);
 */
export class PositionFilter {
  readonly dynamics: Dynamics;
  private readonly q: number;
  private readonly oscillator: OscillatorClass;
  private readonly mask: number;
  /** Broadcast Klobuchar coefficients (replaced when new navigation data arrives). */
  iono?: IonoCoefficients;
  private readonly gate: number;
  private x: number[] = [];
  private p: Mat = [];
  private t?: number;
  private reference?: Constellation;
  private readonly isbIndex = new Map<Constellation, number>();
  /**
   * Per-satellite correlated-error states: index in the state, the error model's variance of
   * the correlated terms (refreshed with the elevation), and when the satellite was last used.
   * A satellite unseen for longer than the correlation time loses its state; a restart clears all.
   */
  private readonly biasIndex = new Map<string, { k: number; variance: number; seen: number }>();
  private readonly tau: number;
  /** Sigma of the broadcast ionosphere's common scale error, and its state's index (-1: none). */
  private readonly ionoShare: number;
  private ionoScaleK = -1;
  /** +1 forward in time; -1 for the backward pass of a forward-backward (combined) solution. */
  private readonly direction: 1 | -1;
  /** Restarts from a single-point fix after the first (why each happened is on its epoch's result). */
  restarts = 0;

  constructor(options: KalmanOptions) {
    if (options.dynamics !== 'static' && options.dynamics !== 'moving') throw new Error(`dynamics must be 'static' or 'moving', got "${String(options.dynamics)}"`);
    this.dynamics = options.dynamics;
    this.q = options.accelerationPsd ?? 1;
    this.oscillator = options.oscillator ?? 'TCXO';
    this.mask = (options.elevationMaskDeg ?? 10) * RAD;
    this.iono = options.iono;
    this.gate = chi2Quantile(options.pfa ?? 1e-5, 1);
    this.direction = options.backward ? -1 : 1;
    this.tau = options.errorCorrelationS ?? 3600;
    this.ionoShare = options.klobucharErrorShare ?? 0.5;
    if (!(this.ionoShare >= 0)) throw new Error(`klobucharErrorShare must be 0 or more, got ${String(options.klobucharErrorShare)}`);
  }

  /**
   * One epoch: predict to `time`, update with the measurements (those RAIM excluded already
   * left out). `spp` starts or restarts the filter; without it and before the first start the
   * result is undefined.
   */
  update(time: number, meas: SatMeasurement[], spp: SppFix | undefined): KalmanFix | undefined {
    let initialised: string | undefined;
    if (this.t === undefined || this.direction * (time - this.t) < 0) {
      if (!spp) return undefined;
      this.start(spp);
      initialised = 'cold start from the single-point fix';
    } else this.predict(time - this.t);
    this.t = time;
    let outcome = this.correct(time, meas);
    if (!initialised && outcome.diverged && spp) {
      this.restarts++;
      const why = `restarted from the single-point fix: ${outcome.rejected.length} of ${outcome.rejected.length + outcome.used.length} pseudoranges disagreed with the ${this.dynamics} filter`;
      this.start(spp);
      this.t = time;
      outcome = this.correct(time, meas);
      initialised = why;
    }
    return this.result(time, outcome, initialised);
  }

  private start(spp: SppFix): void {
    const systems = Object.keys(spp.clockBias) as Constellation[];
    this.reference = systems.includes('GPS') ? 'GPS' : systems[0];
    this.isbIndex.clear();
    this.biasIndex.clear();
    const n = BASE;
    this.x = new Array<number>(n).fill(0);
    this.p = zeros(n, n);
    // The single-point fix is the linearisation point; a loose 100 m prior lets this epoch's
    // own measurements decide (they are not counted twice).
    for (let k = 0; k < 3; k++) {
      this.x[POS + k] = spp.position[k];
      this.p[POS + k][POS + k] = 1e4;
    }
    if (this.dynamics === 'moving') for (let k = 0; k < 3; k++) this.p[VEL + k][VEL + k] = 100; // 10 m/s a priori, no Doppler yet
    const ref = spp.clockBias[this.reference as Constellation] ?? 0;
    this.x[CLK] = ref;
    this.p[CLK][CLK] = 1e4;
    // Drift unknown to the oscillator's initial frequency error (c times s/s).
    this.p[DRIFT][DRIFT] = (CLIGHT * OSCILLATORS[this.oscillator].initialDrift) ** 2;
    for (const s of systems) if (s !== this.reference) this.x[this.addIsb(s)] = (spp.clockBias[s] ?? 0) - ref;
    // The broadcast ionosphere's scale error, a priori its published share of the delay.
    this.ionoScaleK = this.ionoShare > 0 ? this.addState(this.ionoShare ** 2) : -1;
  }

  /** Adds an inter-system bias state for a constellation, a priori unknown (1 km one-sigma). */
  private addIsb(s: Constellation): number {
    const k = this.addState(1e6);
    this.isbIndex.set(s, k);
    return k;
  }

  /** Appends a state of value 0 and the given variance, uncorrelated with the rest; returns its index. */
  private addState(variance: number): number {
    const k = this.x.length;
    this.x.push(0);
    for (const row of this.p) row.push(0);
    this.p.push(new Array<number>(k + 1).fill(0));
    this.p[k][k] = variance;
    return k;
  }

  /** Removes state k, shifting the indices above it. */
  private removeState(k: number): void {
    this.x.splice(k, 1);
    this.p.splice(k, 1);
    for (const row of this.p) row.splice(k, 1);
    for (const [s, i] of this.isbIndex) if (i > k) this.isbIndex.set(s, i - 1);
    if (this.ionoScaleK > k) this.ionoScaleK--;
    for (const b of this.biasIndex.values()) if (b.k > k) b.k--;
  }

  /** The correlated-error state of a satellite, added with its variance when new. */
  private biasState(sat: string, variance: number, time: number): number {
    let b = this.biasIndex.get(sat);
    if (!b) {
      b = { k: this.addState(variance), variance, seen: time };
      this.biasIndex.set(sat, b);
    }
    b.variance = variance;
    b.seen = time;
    return b.k;
  }

  /** Propagates by dt seconds (negative on the backward pass: the transition runs back, the noise still grows). */
  private predict(signedDt: number): void {
    const dt = Math.abs(signedDt);
    const sign = Math.sign(signedDt);
    if (dt === 0) return;
    const n = this.x.length;
    // x' = F x: position integrates velocity, clock bias integrates drift.
    for (let k = 0; k < 3; k++) this.x[POS + k] += this.x[VEL + k] * signedDt;
    this.x[CLK] += this.x[DRIFT] * signedDt;
    const f = identity(n);
    for (let k = 0; k < 3; k++) f[POS + k][VEL + k] = signedDt;
    f[CLK][DRIFT] = signedDt;
    this.p = multiply(multiply(f, this.p), transpose(f));
    if (this.dynamics === 'moving') {
      const q = this.q;
      for (let k = 0; k < 3; k++) {
        this.p[POS + k][POS + k] += (q * dt ** 3) / 3;
        this.p[POS + k][VEL + k] += (sign * q * dt * dt) / 2;
        this.p[VEL + k][POS + k] += (sign * q * dt * dt) / 2;
        this.p[VEL + k][VEL + k] += q * dt;
      }
    }
    const c2 = CLIGHT * CLIGHT;
    const qc = clockProcessNoise(this.oscillator, dt);
    this.p[CLK][CLK] += c2 * qc[0][0];
    this.p[CLK][DRIFT] += sign * c2 * qc[0][1];
    this.p[DRIFT][CLK] += sign * c2 * qc[0][1];
    this.p[DRIFT][DRIFT] += c2 * qc[1][1];
    // Inter-system biases are receiver hardware delays: a random walk of 1 cm per square root
    // of a second lets them follow temperature over hours without absorbing the clock.
    for (const k of this.isbIndex.values()) this.p[k][k] += 1e-4 * dt;
    // The ionosphere's scale error decays with the same correlation time (at 0, each epoch's is new).
    if (this.ionoScaleK >= 0) this.decay(this.ionoScaleK, this.tau > 0 ? Math.exp(-dt / this.tau) : 0, this.ionoShare ** 2);
    // Correlated pseudorange errors decay towards zero with their correlation time; the process
    // noise keeps each one's variance at the error model's value.
    if (this.tau > 0) {
      const phi = Math.exp(-dt / this.tau);
      for (const [sat, b] of [...this.biasIndex]) {
        if (Math.abs((this.t ?? 0) + signedDt - b.seen) > this.tau) {
          this.removeState(b.k);
          this.biasIndex.delete(sat);
          continue;
        }
        this.decay(b.k, phi, b.variance);
      }
    }
  }

  /** One step of a first-order Gauss-Markov state: x' = phi x, its variance kept at `variance`. */
  private decay(k: number, phi: number, variance: number): void {
    this.x[k] *= phi;
    for (let j = 0; j < this.x.length; j++) {
      this.p[k][j] *= phi;
      if (j !== k) this.p[j][k] *= phi;
    }
    this.p[k][k] += variance * (1 - phi * phi);
  }

  /** Linearised pseudorange rows at the current state. */
  private rows(time: number, meas: SatMeasurement[]) {
    const rcv: Vec3 = [this.x[0], this.x[1], this.x[2]];
    const geo = ecefToGeodetic(rcv);
    const { tow } = gpsWeekTow(time);
    const out: { m: SatMeasurement; h: number[]; y: number; r: number; total: number; kind: 'code' | 'doppler' }[] = [];
    for (const m of meas) {
      const { range, los } = geometricRange(m.satPos, rcv);
      const { az, el } = azEl(rcv, geo, m.satPos);
      if (el < this.mask) continue;
      let isb = 0;
      let isbK = -1;
      if (m.constellation !== this.reference) {
        isbK = this.isbIndex.get(m.constellation) ?? this.addIsb(m.constellation);
        isb = this.x[isbK];
      }
      const iono = m.ionoFree ? 0 : klobuchar(this.iono, geo, az, el, tow) * ionoScale(m.frequency);
      const tropo = saastamoinen(geo, el);
      // The whole error model's variance; with correlated-error states, the part other than
      // receiver noise is carried by the satellite's state and the row keeps the noise alone.
      const total = pseudorangeVariance(el, m, iono, m.codeNoiseScale ?? 1);
      let r = total;
      let biasK = -1;
      if (this.tau > 0) {
        const correlated = pseudorangeVariance(el, m, iono, 0);
        biasK = this.biasState(m.sat, correlated, time);
        r = total - correlated;
      }
      const ionoScaleError = this.ionoScaleK >= 0 ? iono * this.x[this.ionoScaleK] : 0;
      const predicted = range + this.x[CLK] + isb - CLIGHT * m.satClock + iono + ionoScaleError + tropo + (biasK >= 0 ? this.x[biasK] : 0);
      const h = new Array<number>(this.x.length).fill(0);
      h[0] = -los[0];
      h[1] = -los[1];
      h[2] = -los[2];
      h[CLK] = 1;
      if (isbK >= 0) h[isbK] = 1;
      if (biasK >= 0) h[biasK] = 1;
      if (this.ionoScaleK >= 0) h[this.ionoScaleK] = iono;
      out.push({ m, h, y: m.pseudorange - predicted, r, total, kind: 'code' });
      if (m.doppler !== undefined && this.dynamics === 'moving') {
        // -lambda D = u . (v_sat - v_rcv) + c (drift_rcv - drift_sat)
        const lambda = CLIGHT / m.frequency;
        const vs = los[0] * m.satVel[0] + los[1] * m.satVel[1] + los[2] * m.satVel[2];
        const vr = los[0] * this.x[3] + los[1] * this.x[4] + los[2] * this.x[5];
        const hd = new Array<number>(this.x.length).fill(0);
        hd[3] = -los[0];
        hd[4] = -los[1];
        hd[5] = -los[2];
        hd[DRIFT] = 1;
        // Doppler noise: 0.1 m/s, a receiver datasheet figure for code-tracking Doppler at 1 Hz (u-blox M8T: 0.05 m/s).
        out.push({ m, h: hd, y: -lambda * m.doppler - (vs - vr + this.x[DRIFT] - CLIGHT * m.satClockDrift), r: 0.01, total: 0.01, kind: 'doppler' });
      }
    }
    return out;
  }

  private correct(time: number, meas: SatMeasurement[]): { used: string[]; rejected: string[]; diverged: boolean } {
    const rows = this.rows(time, meas);
    const code = rows.filter((r) => r.kind === 'code');
    // A receiver clock step (millisecond clock steering) moves every pseudorange alike: take
    // the median innovation into the clock when it is far outside the clock's predicted spread.
    if (code.length) {
      const med = median(code.map((r) => r.y));
      const spread = Math.sqrt(this.p[CLK][CLK] + Math.max(...code.map((r) => r.total)));
      if (Math.abs(med) > 5 * spread) {
        this.x[CLK] += med;
        for (let k = 0; k < this.x.length; k++) if (k !== CLK) this.p[CLK][k] = this.p[k][CLK] = 0;
        this.p[CLK][CLK] = 100;
        for (const r of rows) if (r.kind === 'code') r.y -= med;
      }
    }
    // Screen the pseudoranges before any of them moves the state: each innovation less the
    // epoch's median (the receiver clock, unknown to metres after 30 s, is common to all) against
    // its variance without the clock. One gate per row in sequence would let a faulty row that
    // comes first pass into the clock and the position while the clock is still loose.
    const screened = new Set<(typeof rows)[number]>();
    if (code.length >= 4) {
      const med = median(code.map((r) => r.y));
      for (const r of code) {
        const h = r.h.map((v, k) => (k === CLK ? 0 : v));
        let hph = 0;
        for (let a = 0; a < h.length; a++) for (let b = 0; b < h.length; b++) hph += h[a] * this.p[a][b] * h[b];
        // Gated against the whole error model's variance (r.total), as without correlated-error
        // states: a receiver whose errors change faster than the model says is not a fault.
        if ((r.y - med) ** 2 / (hph + r.total) > this.gate) screened.add(r);
      }
    }
    const x0 = [...this.x];
    const used: string[] = [];
    const rejected: string[] = [];
    for (const r of rows) {
      if (screened.has(r)) {
        rejected.push(r.m.sat);
        continue;
      }
      // The innovation against the state as already updated by earlier rows (sequential updates).
      let y = r.y;
      for (let k = 0; k < this.x.length; k++) y -= (r.h[k] ?? 0) * (this.x[k] - x0[k]);
      const ph = this.p.map((row) => row.reduce((s, v, k) => s + v * (r.h[k] ?? 0), 0));
      const s = r.h.reduce((acc, hk, k) => acc + hk * ph[k], 0) + r.r;
      if ((y * y) / (s + r.total - r.r) > this.gate) {
        if (r.kind === 'code') rejected.push(r.m.sat);
        continue;
      }
      const gain = ph.map((v) => v / s);
      for (let k = 0; k < this.x.length; k++) this.x[k] += gain[k] * y;
      // Joseph-free symmetric form P - K S K' (S scalar), then symmetrised.
      for (let a = 0; a < this.x.length; a++) for (let b = 0; b < this.x.length; b++) this.p[a][b] -= gain[a] * s * gain[b];
      if (r.kind === 'code') used.push(r.m.sat);
    }
    const diverged = code.length >= 4 && rejected.length * 2 > code.length;
    return { used, rejected, diverged };
  }

  private result(time: number, o: { used: string[]; rejected: string[] }, initialised: string | undefined): KalmanFix {
    const position: Vec3 = [this.x[0], this.x[1], this.x[2]];
    const geodetic = ecefToGeodetic(position);
    const e = enuMatrix(geodetic);
    const sig = e.map((row) => {
      let v = 0;
      for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) v += row[a] * this.p[a][b] * row[b];
      return Math.sqrt(Math.max(v, 0));
    }) as Vec3;
    const clockBias: Partial<Record<Constellation, number>> = {};
    if (this.reference) clockBias[this.reference] = this.x[CLK];
    for (const [s, k] of this.isbIndex) clockBias[s] = this.x[CLK] + this.x[k];
    return {
      fix: true,
      time,
      position,
      geodetic,
      velocity: [this.x[3], this.x[4], this.x[5]],
      clockBias,
      clockDrift: this.x[DRIFT],
      sigmaEnu: sig,
      covariance: [0, 1, 2].map((a) => [0, 1, 2].map((b) => this.p[a][b])),
      used: o.used,
      rejected: o.rejected,
      residuals: [],
      initialised,
      dynamics: this.dynamics,
    };
  }

  /** Post-fit pseudorange residuals at the current state (for reports). */
  residuals(time: number, meas: SatMeasurement[]): { sat: string; residual: number; sigma: number }[] {
    return this.rows(time, meas)
      .filter((r) => r.kind === 'code')
      .map((r) => ({ sat: r.m.sat, residual: r.y, sigma: Math.sqrt(r.r) }));
  }
}

function identity(n: number): Mat {
  const m = zeros(n, n);
  for (let k = 0; k < n; k++) m[k][k] = 1;
  return m;
}

function median(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  const k = s.length >> 1;
  return s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2;
}
