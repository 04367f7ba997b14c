// Carrier-smoothed pseudoranges (Hatch filter; divergence-free with two frequencies) with cycle-slip and gap resets.
import { CLIGHT } from './constants.ts';
import type { SatObservation } from './rinex/obs.ts';

export interface HatchOptions {
  /**
   * Smoothing time constant with one frequency, seconds (default 100: the RTCA DO-229 and
   * DO-253 value; with L1 phase alone the code and carrier ionosphere diverge at twice the
   * ionospheric rate, so the window must stay short).
   */
  tauSingleS?: number;
  /**
   * Time constant of the divergence-free filter, seconds (default 600). The dual-frequency
   * carrier combination carries the same ionosphere as the L1 code, so nothing diverges; what
   * bounds the window is the code multipath and inter-frequency bias drift it must still
   * follow. Hwang, McGraw and Bader (Navigation 46(2), 1999) analyse divergence-free smoothing
   * to 600 s and beyond; 600 s is what we use, once for every receiver.
   */
  tauDualS?: number;
  /** Time constant of the ionosphere-free code smoothed with the ionosphere-free phase, seconds (default 600, as divergence-free). */
  tauIonoFreeS?: number;
  /** Geometry-free phase jump between consecutive epochs that counts as a slip, metres (default 0.05: RTKLIB's pos2-slipthres). */
  gfThresholdM?: number;
  /** Melbourne-Wubbena jump from its mean since the last reset that counts as a slip, wide-lane cycles (default 10: RTKLIB ppp.c THRES_MW_JUMP). */
  mwThresholdCycles?: number;
  /** A satellite missing for more than this many nominal intervals restarts its filter (default 5: RTKLIB's pos2-maxout). */
  maxOutageIntervals?: number;
}

/**
 * Carrier frequencies of one satellite's two signals, Hz (f2 undefined with one frequency), and
 * the ionosphere-free code when the positioning uses it for this satellite (it is then smoothed
 * with the ionosphere-free phase).
 */
export type FrequencyOf = (o: SatObservation) => { f1: number; f2?: number; ionoFreeCode?: number } | undefined;

export type ResetReason = 'first' | 'loss_of_lock' | 'geometry_free' | 'melbourne_wubbena' | 'gap' | 'no_phase' | 'code_carrier';

interface SatState {
  time: number;
  /** Epochs since the last reset, this one included. */
  n: number;
  smoothed: number;
  /** The smoothing phase (L1, or the divergence-free combination) at the last epoch, metres. */
  phase: number;
  dual: boolean;
  /** Smoothing the ionosphere-free code (with the ionosphere-free phase). */
  ionoFree: boolean;
  gf?: number;
  mwMean?: number;
  mwCount: number;
}

export interface SmoothedObservation {
  sat: string;
  /** Carrier-smoothed pseudorange, metres (the raw code on the epoch of a reset). */
  pseudorange: number;
  /** The raw code that was smoothed (the L1 code, or the ionosphere-free combination), metres. */
  raw: number;
  /** The smoothed code is the ionosphere-free combination, smoothed with the ionosphere-free phase. */
  ionoFree: boolean;
  /** Epochs averaged since the last reset (1 on a reset). */
  epochs: number;
  divergenceFree: boolean;
  /**
   * Share of the code's white noise variance left: 1/n while the filter fills, alpha/(2 - alpha)
   * for the first-order filter of gain alpha after that.
   */
  noiseScale: number;
  /** Why the filter restarted on this epoch, when it did. */
  reset?: ResetReason;
}

/**
 * Per-satellite Hatch filters. With the second frequency's phase the smoothing phase is the
 * divergence-free combination Phi1 + 2 (Phi1 - Phi2) / (gamma - 1), gamma = (f1/f2)^2, whose
 * ionospheric term equals the L1 code's (+I1), so the output keeps the code's ionosphere (the
 * broadcast model still corrects it) and does not drift; with L1 alone it is the classic
 * filter. Each satellite restarts on a loss-of-lock flag, a geometry-free or Melbourne-Wubbena
 * jump, a code-minus-carrier jump no code can make, or an outage.
 *
 * @example
 * const hatch = new HatchFilter();
 * for (const ep of obs.epochs) {
 *   const smoothed = hatch.update(ep.time, ep.sats, (o) => ({ f1: FREQ_L1, f2: FREQ_L2 }));
 * }
 */
export class HatchFilter {
  private readonly states = new Map<string, SatState>();
  private readonly tauSingle: number;
  private readonly tauDual: number;
  private readonly tauIonoFree: number;
  private readonly gfThreshold: number;
  private readonly mwThreshold: number;
  private readonly maxOutage: number;
  /** Smallest interval seen between epochs, seconds: the nominal data rate. */
  private interval = Infinity;
  private lastTime?: number;
  /** Restarts per reason since the filter was made (first acquisitions included). */
  readonly resets: Record<ResetReason, number> = { first: 0, loss_of_lock: 0, geometry_free: 0, melbourne_wubbena: 0, gap: 0, no_phase: 0, code_carrier: 0 };

  constructor(options: HatchOptions = {}) {
    this.tauSingle = options.tauSingleS ?? 100;
    this.tauDual = options.tauDualS ?? 600;
    this.tauIonoFree = options.tauIonoFreeS ?? 600;
    this.gfThreshold = options.gfThresholdM ?? 0.05;
    this.mwThreshold = options.mwThresholdCycles ?? 10;
    this.maxOutage = options.maxOutageIntervals ?? 5;
  }

  /** Restarts one satellite's filter (its code was found faulty). */
  forget(sat: string): void {
    this.states.delete(sat);
  }

  /** Forgets every satellite (a new session, or time went backwards). */
  clear(): void {
    this.states.clear();
    this.lastTime = undefined;
  }

  /** Smooths one epoch's pseudoranges; satellites without a pseudorange are left out. */
  update(time: number, sats: readonly SatObservation[], frequencyOf: FrequencyOf): SmoothedObservation[] {
    if (this.lastTime !== undefined) {
      const dt = time - this.lastTime;
      if (dt < 0) this.clear();
      else if (dt > 0) this.interval = Math.min(this.interval, dt);
    }
    this.lastTime = time;
    const out: SmoothedObservation[] = [];
    for (const o of sats) {
      const l1Code = o.pseudorange;
      if (l1Code === undefined) continue;
      const f = frequencyOf(o);
      const ionoFree = f?.ionoFreeCode !== undefined && f.f2 !== undefined && o.carrierPhase2 !== undefined;
      // The code being smoothed: the ionosphere-free combination only with both phases to smooth it.
      const p = ionoFree && f?.ionoFreeCode !== undefined ? f.ionoFreeCode : l1Code;
      if (!f || o.carrierPhase === undefined) {
        this.states.delete(o.sat);
        if (f) this.resets.no_phase++;
        out.push({ sat: o.sat, pseudorange: p, raw: p, ionoFree: false, epochs: 1, divergenceFree: false, noiseScale: 1, reset: 'no_phase' });
        continue;
      }
      const l1 = (o.carrierPhase * CLIGHT) / f.f1;
      const dual = f.f2 !== undefined && o.carrierPhase2 !== undefined;
      let phase = l1;
      let gf: number | undefined;
      let mw: number | undefined;
      if (dual && f.f2 !== undefined && o.carrierPhase2 !== undefined) {
        const l2 = (o.carrierPhase2 * CLIGHT) / f.f2;
        const gamma = (f.f1 / f.f2) ** 2;
        // Ionosphere-free phase for the ionosphere-free code; else the divergence-free
        // combination, whose ionosphere is the L1 code's.
        phase = ionoFree ? (gamma * l1 - l2) / (gamma - 1) : l1 + (2 * (l1 - l2)) / (gamma - 1);
        gf = l1 - l2;
        if (o.pseudorange2 !== undefined) {
          const wl = (f.f1 * l1 - f.f2 * l2) / (f.f1 - f.f2);
          const nl = (f.f1 * l1Code + f.f2 * o.pseudorange2) / (f.f1 + f.f2);
          mw = (wl - nl) / (CLIGHT / (f.f1 - f.f2));
        }
      }
      const prev = this.states.get(o.sat);
      const reason = this.slip(time, o, prev, dual, ionoFree, phase, p, gf, mw);
      if (reason) {
        this.resets[reason]++;
        this.states.set(o.sat, { time, n: 1, smoothed: p, phase, dual, ionoFree, gf, mwMean: mw, mwCount: mw === undefined ? 0 : 1 });
        out.push({ sat: o.sat, pseudorange: p, raw: p, ionoFree, epochs: 1, divergenceFree: dual, noiseScale: 1, reset: reason });
        continue;
      }
      const s = prev as SatState;
      const dt = time - s.time;
      const tau = ionoFree ? this.tauIonoFree : dual ? this.tauDual : this.tauSingle;
      s.n++;
      // Equal weights while the filter fills, then a first-order filter of time constant tau.
      const alpha = Math.max(1 / s.n, Math.min(1, dt / tau));
      s.smoothed = alpha * p + (1 - alpha) * (s.smoothed + (phase - s.phase));
      s.phase = phase;
      s.time = time;
      s.gf = gf;
      if (mw !== undefined) {
        s.mwCount++;
        s.mwMean = s.mwMean === undefined ? mw : s.mwMean + (mw - s.mwMean) / s.mwCount;
      }
      const noiseScale = alpha === 1 / s.n ? alpha : alpha / (2 - alpha);
      out.push({ sat: o.sat, pseudorange: s.smoothed, raw: p, ionoFree, epochs: s.n, divergenceFree: dual, noiseScale });
    }
    return out;
  }

  /** Why this satellite's filter must restart now, or undefined when its carrier is continuous. */
  private slip(time: number, o: SatObservation, prev: SatState | undefined, dual: boolean, ionoFree: boolean, phase: number, p: number, gf?: number, mw?: number): ResetReason | undefined {
    if (!prev) return 'first';
    const dt = time - prev.time;
    if (!(dt > 0) || (Number.isFinite(this.interval) && dt > this.maxOutage * this.interval + 1e-6)) return 'gap';
    // Bit 0 of the RINEX loss-of-lock digit: lock lost since the previous observation.
    if (((o.lli ?? 0) & 1) !== 0 || (dual && ((o.lli2 ?? 0) & 1) !== 0)) return 'loss_of_lock';
    if (dual !== prev.dual || ionoFree !== prev.ionoFree) return 'no_phase';
    if (gf !== undefined && prev.gf !== undefined && Math.abs(gf - prev.gf) > this.gfThreshold) return 'geometry_free';
    if (mw !== undefined && prev.mwMean !== undefined && Math.abs(mw - prev.mwMean) > this.mwThreshold) return 'melbourne_wubbena';
    // Code minus carrier can only move by the ionosphere (twice, single frequency), multipath
    // and noise; 100 m at once is a slip on L1 alone or a receiver clock step in one of them.
    const predicted = prev.smoothed + (phase - prev.phase);
    if (Math.abs(p - predicted) > 100) return 'code_carrier';
    return undefined;
  }
}
