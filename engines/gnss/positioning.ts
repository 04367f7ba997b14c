// The filtered positioning path: carrier smoothing, then the Kalman filter on what RAIM kept.
import { FREQ_E5B, FREQ_G1_BASE, FREQ_G1_STEP, FREQ_G2_BASE, FREQ_G2_STEP, FREQ_L1, FREQ_L2, FREQ_L5 } from './constants.ts';
import type { EphemerisStore } from './ephemeris/select.ts';
import type { IonoCoefficients } from './ephemeris/types.ts';
import { PositionFilter, type Dynamics, type KalmanFix } from './kalman.ts';
import { ionoFreeCode, type IonosphereMode, type SatMeasurement } from './measurements.ts';
import type { RaimResult } from './raim.ts';
import type { ObsEpoch, SatObservation } from './rinex/obs.ts';
import { HatchFilter, type HatchOptions, type SmoothedObservation } from './smoothing.ts';
import type { OscillatorClass } from './clock.ts';

/** `kalman`: carrier-smoothed pseudoranges through the position-velocity-clock filter (default). `spp`: each epoch on its own. */
export type PositioningMode = 'kalman' | 'spp';

export interface PositioningOptions {
  mode?: PositioningMode;
  /** Motion model of the filter: must be said for `kalman` (see `Dynamics`). */
  dynamics?: Dynamics;
  /** Carrier smoothing of the pseudoranges before the filter (default true). */
  smoothing?: boolean;
  hatch?: HatchOptions;
  accelerationPsd?: number;
  oscillator?: OscillatorClass;
  elevationMaskDeg?: number;
  iono?: IonoCoefficients;
  /**
   * `broadcast` (default): L1 code and the Klobuchar model for every satellite;
   * `dual-frequency`: the ionosphere-free code combination for each satellite whose data has
   * the second code its broadcast clock refers to, L1 and Klobuchar for the rest (see
   * `IonosphereMode`). Read by whoever prepares the measurements: `solveFile`, `GnssEngine`.
   */
  ionosphere?: IonosphereMode;
  /**
   * File solutions only: also run the filter backwards over the file and combine the two
   * solutions of each epoch by their covariances (RTKLIB's forward-backward "combined"
   * solution type). Every epoch then uses the whole file, as a post-processed solution can;
   * a live receiver has only the forward filter.
   */
  combined?: boolean;
  /** Run backwards in time (the backward pass of a combined solution). */
  backward?: boolean;
  /** Correlation time of the pseudorange errors other than receiver noise, seconds (`KalmanOptions.errorCorrelationS`; default 3600, 0: independent epochs). */
  errorCorrelationS?: number;
  /** Sigma of the broadcast ionosphere's scale error, a share of its delay (`KalmanOptions.klobucharErrorShare`; default 0.5, 0: no such state). */
  klobucharErrorShare?: number;
}

/** Carrier frequencies of a satellite's first and second signals, Hz (GLONASS from its broadcast channel number). */
export function frequenciesOf(o: SatObservation, store: EphemerisStore, time: number): { f1: number; f2?: number } | undefined {
  const band = o.band2;
  switch (o.sat[0]) {
    case 'G':
    case 'J':
      return { f1: FREQ_L1, f2: band === '2' ? FREQ_L2 : band === '5' ? FREQ_L5 : undefined };
    case 'E':
      return { f1: FREQ_L1, f2: band === '5' ? FREQ_L5 : band === '7' ? FREQ_E5B : undefined };
    case 'R': {
      const eph = store.select(o.sat, time);
      if (!eph || eph.kind !== 'glonass') return undefined;
      const k = eph.frequencyNumber;
      return { f1: FREQ_G1_BASE + FREQ_G1_STEP * k, f2: band === '2' ? FREQ_G2_BASE + FREQ_G2_STEP * k : undefined };
    }
    default:
      return undefined;
  }
}

export interface FilteredEpoch {
  /** The filter's fix, or undefined before it could start (no single-point fix yet) or when RAIM found an unresolved fault. */
  fix?: KalmanFix;
  /** The measurements the filter was given (smoothed pseudoranges, RAIM exclusions left out). */
  measurements: SatMeasurement[];
  smoothed: SmoothedObservation[];
}

/**
 * Carrier smoothing plus the Kalman filter, fed epoch by epoch after the single-point RAIM
 * solution of the raw pseudoranges: satellites RAIM excluded are left out of the filter in the
 * same epoch and their smoothing restarts; an epoch whose fault RAIM could not isolate does not
 * update the filter and gives no fix.
 *
 * @example
 * const pos = new FilteredPositioning({ dynamics: 'static', iono: nav.iono });
 * const out = pos.step(ep, store, measurements, solveWithRaim(ep.time, measurements, spp));
 */
export class FilteredPositioning {
  readonly hatch?: HatchFilter;
  readonly filter: PositionFilter;

  constructor(options: PositioningOptions) {
    if (!options.dynamics) throw new Error("the Kalman filter needs the receiver's dynamics: 'static' or 'moving'");
    this.hatch = options.smoothing === false ? undefined : new HatchFilter(options.hatch);
    this.filter = new PositionFilter({
      dynamics: options.dynamics,
      accelerationPsd: options.accelerationPsd,
      oscillator: options.oscillator,
      elevationMaskDeg: options.elevationMaskDeg,
      iono: options.iono,
      backward: options.backward,
      errorCorrelationS: options.errorCorrelationS,
      klobucharErrorShare: options.klobucharErrorShare,
    });
    this.direction = options.backward ? -1 : 1;
  }

  private readonly direction: 1 | -1;

  step(epoch: ObsEpoch, store: EphemerisStore, raw: SatMeasurement[], raim: RaimResult): FilteredEpoch {
    // The smoother only needs time to advance: backwards, it runs on negated time tags.
    // Satellites whose measurement is the ionosphere-free code get it smoothed with the ionosphere-free phase.
    const ionoFree = new Set(raw.filter((m) => m.ionoFree).map((m) => m.sat));
    const smoothed = this.hatch
      ? this.hatch.update(this.direction * epoch.time, epoch.sats, (o) => {
          const f = frequenciesOf(o, store, epoch.time);
          const code = ionoFree.has(o.sat) ? ionoFreeCode(o)?.pseudorange : undefined;
          return f && code !== undefined ? { ...f, ionoFreeCode: code } : f;
        })
      : [];
    const bySat = new Map(smoothed.map((s) => [s.sat, s]));
    for (const sat of raim.excluded) this.hatch?.forget(sat);
    const excluded = new Set(raim.excluded);
    const measurements = raw
      .filter((m) => !excluded.has(m.sat))
      .map((m) => {
        const s = bySat.get(m.sat);
        // Only a smoothing of the same code applies (an L1-only smoothing does not fit an ionosphere-free measurement).
        if (!s || s.ionoFree !== (m.ionoFree !== undefined)) return m;
        // The smoothing shift applies to the group-delay-corrected code as well.
        return { ...m, pseudorange: m.pseudorange + (s.pseudorange - s.raw), codeNoiseScale: s.noiseScale };
      });
    if (raim.unresolved) return { measurements, smoothed };
    const spp = raim.solution.fix ? raim.solution : undefined;
    const fix = this.filter.update(epoch.time, measurements, spp);
    if (fix) fix.residuals = this.filter.residuals(epoch.time, measurements);
    return { fix, measurements, smoothed };
  }
}
