// Receiver clock: oscillator noise models, a two-state Kalman filter (offset, drift) and holdover prediction.
import { chi2Quantile } from './chi2.ts';

export type OscillatorClass = 'TCXO' | 'OCXO' | 'rubidium';

/**
 * Power-law noise coefficients of each oscillator class (white frequency h0, random-walk
 * frequency h-2; Brown and Hwang, Introduction to Random Signals and Applied Kalman Filtering,
 * table 9.1), and a typical initial frequency uncertainty.
 */
export const OSCILLATORS: Record<OscillatorClass, { h0: number; hm2: number; initialDrift: number }> = {
  TCXO: { h0: 2e-19, hm2: 2e-20, initialDrift: 1e-6 },
  OCXO: { h0: 8e-20, hm2: 4e-23, initialDrift: 1e-8 },
  rubidium: { h0: 2e-20, hm2: 4e-29, initialDrift: 1e-10 },
};

/** Process noise of the (offset s, drift s/s) state over dt seconds for an oscillator class. */
export function clockProcessNoise(osc: OscillatorClass, dt: number): [[number, number], [number, number]] {
  const { h0, hm2 } = OSCILLATORS[osc];
  const pi2 = Math.PI * Math.PI;
  const q11 = (h0 / 2) * dt + ((2 * pi2 * hm2) / 3) * dt ** 3;
  const q12 = pi2 * hm2 * dt * dt;
  const q22 = 2 * pi2 * hm2 * dt;
  return [
    [q11, q12],
    [q12, q22],
  ];
}

export interface ClockUpdate {
  /** Innovation (measured minus predicted offset), seconds, and its variance. */
  innovation: number;
  innovationVariance: number;
  /** Innovation squared over its variance: chi-square with one degree of freedom when consistent. */
  normalizedInnovation: number;
  rejected: boolean;
}

/**
 * Kalman filter on receiver clock offset (s) and drift (s/s). Measurements are the offsets of
 * successive position/time solutions. An innovation beyond the chi-square gate is reported and
 * not applied (a clock step is exactly what a time spoofer produces), until `resetAfter`
 * consecutive rejections show the clock itself has moved, when the filter re-initialises.
 *
 * @example
 * const kf = new ClockFilter('OCXO');
 * kf.update(t, biasSeconds, 3e-9);
 * const { offset, sigma } = kf.predict(t + 3600); // holdover one hour ahead
 */
export class ClockFilter {
  readonly oscillator: OscillatorClass;
  private x: [number, number] = [0, 0];
  private p: [[number, number], [number, number]] = [
    [0, 0],
    [0, 0],
  ];
  private t?: number;
  private rejections = 0;
  private readonly gate: number;
  private readonly resetAfter: number;
  /** Time of the first measurement since the last (re)initialisation, seconds. */
  calibrationStart?: number;
  updates = 0;

  constructor(oscillator: OscillatorClass, options: { gateProbability?: number; resetAfter?: number } = {}) {
    this.oscillator = oscillator;
    this.gate = chi2Quantile(options.gateProbability ?? 1e-6, 1);
    this.resetAfter = options.resetAfter ?? 5;
  }

  get initialised(): boolean {
    return this.t !== undefined;
  }

  get lastUpdate(): number | undefined {
    return this.t;
  }

  /** Current state estimate: offset (s), drift (s/s) and their one-sigma uncertainties. */
  state(): { offset: number; drift: number; offsetSigma: number; driftSigma: number } {
    return { offset: this.x[0], drift: this.x[1], offsetSigma: Math.sqrt(this.p[0][0]), driftSigma: Math.sqrt(this.p[1][1]) };
  }

  private init(t: number, offset: number, variance: number): void {
    this.x = [offset, 0];
    const d0 = OSCILLATORS[this.oscillator].initialDrift;
    this.p = [
      [variance, 0],
      [0, d0 * d0],
    ];
    this.t = t;
    this.calibrationStart = t;
    this.updates = 1;
    this.rejections = 0;
  }

  /** Propagated state and covariance at time t, without changing the filter. */
  private propagate(t: number): { x: [number, number]; p: [[number, number], [number, number]] } {
    const dt = t - (this.t ?? t);
    const q = clockProcessNoise(this.oscillator, Math.max(dt, 0));
    const [[p11, p12], [, p22]] = this.p;
    return {
      x: [this.x[0] + this.x[1] * dt, this.x[1]],
      p: [
        [p11 + 2 * dt * p12 + dt * dt * p22 + q[0][0], p12 + dt * p22 + q[0][1]],
        [p12 + dt * p22 + q[1][0], p22 + q[1][1]],
      ],
    };
  }

  /** Processes an offset measurement (s) with its variance (s^2) at time t (s). */
  update(t: number, offset: number, variance: number): ClockUpdate {
    if (this.t === undefined) {
      this.init(t, offset, variance);
      return { innovation: 0, innovationVariance: variance, normalizedInnovation: 0, rejected: false };
    }
    const { x, p } = this.propagate(t);
    const innovation = offset - x[0];
    const s = p[0][0] + variance;
    const normalized = (innovation * innovation) / s;
    if (normalized > this.gate) {
      this.rejections++;
      if (this.rejections >= this.resetAfter) this.init(t, offset, variance);
      return { innovation, innovationVariance: s, normalizedInnovation: normalized, rejected: true };
    }
    this.rejections = 0;
    const k0 = p[0][0] / s;
    const k1 = p[1][0] / s;
    this.x = [x[0] + k0 * innovation, x[1] + k1 * innovation];
    this.p = [
      [(1 - k0) * p[0][0], (1 - k0) * p[0][1]],
      [p[1][0] - k1 * p[0][0], p[1][1] - k1 * p[0][1]],
    ];
    this.t = t;
    this.updates++;
    return { innovation, innovationVariance: s, normalizedInnovation: normalized, rejected: false };
  }

  /**
   * Holdover prediction at time t: the offset the clock should read and its one-sigma error from
   * the filter's uncertainty and the oscillator's noise, with a bound at the given confidence.
   */
  predict(t: number, confidence = 0.95): { offset: number; drift: number; sigma: number; bound: number; confidence: number } {
    const { x, p } = this.propagate(t);
    const sigma = Math.sqrt(p[0][0]);
    // Two-sided normal quantile of the confidence level.
    const z = Math.sqrt(chi2Quantile(1 - confidence, 1));
    return { offset: x[0], drift: x[1], sigma, bound: z * sigma, confidence };
  }
}
