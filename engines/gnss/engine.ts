// The engine pipeline per epoch: position with RAIM, velocity, spoofing checks, clock filter, holdover and integrity score.
import { CLIGHT, type Constellation } from './constants.ts';
import { ClockFilter, OSCILLATORS, type ClockUpdate, type OscillatorClass } from './clock.ts';
import { EphemerisStore } from './ephemeris/select.ts';
import type { NavData } from './ephemeris/types.ts';
import { prepareEpoch, type IonosphereMode, type SatMeasurement } from './measurements.ts';
import { solveWithRaim, type RaimResult } from './raim.ts';
import type { ObsEpoch } from './rinex/obs.ts';
import { anomalyCheck, type AnomalyModel, type Features } from './spoofing/anomaly.ts';
import { carrierPhaseCheck } from './spoofing/carrier-phase.ts';
import { clockConsistency } from './spoofing/clock-consistency.ts';
import { dopplerConsistency } from './spoofing/doppler.ts';
import type { EpochMemory } from './spoofing/epoch-memory.ts';
import { multiConstellation } from './spoofing/multi-constellation.ts';
import { EventHistory, type SpoofingStatus, type ThreatType } from './spoofing/history.ts';
import { signalPowerCheck, type SignalPowerResult } from './spoofing/signal-power.ts';
import type { CheckResult } from './spoofing/types.ts';
import type { SppFix } from './spp.ts';
import { solveVelocity, type VelocityFix } from './velocity.ts';
import type { Dynamics, KalmanFix } from './kalman.ts';
import { FilteredPositioning, type PositioningMode } from './positioning.ts';

export interface EngineOptions {
  nav: NavData;
  oscillator?: OscillatorClass;
  elevationMaskDeg?: number;
  anomalyModel?: AnomalyModel;
  /** AGC level of the clean receiver, percent (from calibration), for the signal power check. */
  agcBaselinePercent?: number;
  /**
   * The reported position: `kalman` (default), the carrier-smoothed Kalman filter fed with what
   * RAIM kept, or `spp`, each epoch's own least squares. RAIM and the spoofing checks run on the
   * epoch's own solution either way, so a fault or a spoofer is seen in the epoch it appears.
   */
  positioning?: PositioningMode;
  /** Motion model of the Kalman filter (default `moving`, right for any receiver; `static` for a fixed antenna). */
  dynamics?: Dynamics;
  /** Ionosphere: the broadcast model on the L1 code (default), or the dual-frequency ionosphere-free code where the data has it (`IonosphereMode`). */
  ionosphere?: IonosphereMode;
}

export interface HoldoverPeriod {
  start: number;
  end?: number;
  /** Clock error found at recovery (measured minus predicted offset) and the predicted one-sigma error, ns. */
  errorNs?: number;
  predictedSigmaNs?: number;
}

export interface EpochAssessment {
  time: number;
  fix: SppFix | undefined;
  /** The Kalman filter's solution of this epoch (positioning `kalman`), present whenever `fix` is. */
  filtered?: KalmanFix;
  noFixReason?: string;
  raim: RaimResult;
  velocity?: VelocityFix;
  checks: CheckResult[];
  signalPower: SignalPowerResult;
  spoofing: { status: SpoofingStatus; threatType: ThreatType | null; confidence: number };
  clock: { offsetNs: number; driftNsPerHour: number; sigmaNs: number; holdover: boolean; update?: ClockUpdate };
  /** Anomaly-model features of this epoch (all checks available), for training or inspection. */
  features?: Features;
  constellations: Constellation[];
  /** Satellites with a usable measurement and ephemeris this epoch. */
  satellitesTracked: number;
  integrity: { overall: number; position: number; timing: number; spoofing: number };
}

/**
 * Runs observation epochs through the whole engine and keeps the state the positioning service
 * needs between them (previous epoch, clock filter, event history).
 *
 * @example
 * const engine = new GnssEngine({ nav: sim.nav, oscillator: 'OCXO' });
 * const a = engine.process(sim.step().obs);
 * a.spoofing.status; // 'clear'
 */
export class GnssEngine {
  readonly clock: ClockFilter;
  readonly history = new EventHistory(120);
  private store: EphemerisStore;
  private nav: NavData;
  private prev?: EpochMemory;
  private readonly options: EngineOptions;
  private readonly positioning?: FilteredPositioning;
  lastAssessment?: EpochAssessment;
  holdoverSince?: number;
  /** The last holdover period, ended but not yet judged against a clock measurement. */
  private unjudged?: HoldoverPeriod;
  /** Drift one-sigma (s/s) when `calibrate` last ran, to report how much the estimate improved since. */
  lastCalibrationDriftSigma?: number;
  /** Each holdover period, and on recovery the clock error it had accumulated against the prediction. */
  readonly holdovers: HoldoverPeriod[] = [];

  constructor(options: EngineOptions) {
    this.options = options;
    this.nav = options.nav;
    this.store = new EphemerisStore(options.nav.ephemerides);
    this.clock = new ClockFilter(options.oscillator ?? 'OCXO');
    if ((options.positioning ?? 'kalman') === 'kalman') {
      this.positioning = new FilteredPositioning({
        dynamics: options.dynamics ?? 'moving',
        // The position filter models the receiver clock as a TCXO whatever the timing oscillator:
        // the least stable class is never over-confident, costs nothing with four or more
        // satellites, and keeps live positions identical to `solveFile` on the same data.
        elevationMaskDeg: options.elevationMaskDeg ?? 10,
        iono: options.nav.iono,
      });
    }
  }

  /** Replaces the broadcast ephemerides (new navigation data decoded). */
  setNav(nav: NavData): void {
    this.nav = nav;
    if (this.positioning) this.positioning.filter.iono = nav.iono;
    this.store = new EphemerisStore(nav.ephemerides);
  }

  process(obs: ObsEpoch, extras: { agcPercent?: number } = {}): EpochAssessment {
    const { measurements, missing } = prepareEpoch(obs, this.store, { ionosphere: this.options.ionosphere });
    const spp = { iono: this.nav.iono, elevationMaskDeg: this.options.elevationMaskDeg ?? 10 };
    const raim = solveWithRaim(obs.time, measurements, spp);
    const fix = raim.solution.fix ? raim.solution : undefined;
    // The filter sees every epoch (its smoothing needs the carrier continuity); its position is
    // reported only on epochs with a checked single-point fix.
    const stepped = this.positioning?.step(obs, this.store, measurements, raim);
    const filtered = fix ? stepped?.fix : undefined;
    const meas = new Map(measurements.map((m) => [m.sat, m]));
    const elevation = new Map((fix?.residuals ?? []).map((r) => [r.sat, r.el]));
    const signalPower = signalPowerCheck(
      measurements.filter((m) => m.cn0 !== undefined).map((m) => ({ cn0: m.cn0 ?? 0, el: elevation.get(m.sat) })),
      { agcPercent: extras.agcPercent, agcBaselinePercent: this.options.agcBaselinePercent },
    );
    let velocity: VelocityFix | undefined;
    let clockUpdate: ClockUpdate | undefined;
    const checks: CheckResult[] = [];
    let features: Features | undefined;
    if (fix) {
      velocity = solveVelocity(fix, measurements);
      const usedMeas = new Map(fix.residuals.map((r) => [r.sat, meas.get(r.sat) as SatMeasurement]));
      const clockM = fix.clockBias.GPS ?? Object.values(fix.clockBias)[0] ?? 0;
      const tdop = fix.dop.tdop;
      const sigmaT = Math.max(tdop * 1.0, 0.5) / CLIGHT;
      // While the signals are under suspicion the clock filter is not fed (it coasts as in holdover).
      const suspicious = this.history.open !== undefined && !this.history.open.resolved;
      if (!suspicious || !this.clock.initialised) clockUpdate = this.clock.update(obs.time, clockM / CLIGHT, sigmaT * sigmaT);
      const doppler = dopplerConsistency(this.prev, obs.time, fix, usedMeas);
      const carrier = carrierPhaseCheck(this.prev, obs.time, usedMeas);
      const clock = clockConsistency(clockUpdate);
      const multi = multiConstellation(obs.time, measurements, spp);
      // Features once the clock filter has settled (its first innovations carry the start-up transient).
      if (doppler.available && carrier.available && clock.available && signalPower.available && fix.dof >= 1 && this.clock.updates >= 10) {
        features = [
          cn0Change(this.prev, usedMeas),
          Math.log1p(fix.sse / fix.dof),
          Math.log1p(doppler.statistic),
          Math.log1p(carrier.statistic),
          Math.sqrt(clock.statistic),
        ];
      }
      checks.push(doppler, multi, carrier, clock, anomalyCheck(this.options.anomalyModel, features));
      this.prev = { time: obs.time, fix, meas: usedMeas };
    } else {
      this.prev = undefined;
      checks.push(anomalyCheck(this.options.anomalyModel, undefined));
    }
    checks.push(signalPower);
    const warnings = checks.filter((c) => c.result === 'warning');
    const status: SpoofingStatus = warnings.length >= 2 ? 'alert' : warnings.length === 1 ? 'warning' : 'clear';
    const open = this.history.open;
    // Signal-level evidence alone during an open event keeps that event's classification.
    const threat = open && warnings.every((w) => w.type === 'signal_power' || w.type === 'ml_anomaly') ? open.threatType : classify(warnings, signalPower, measurements.length, fix, this.lastAssessment?.fix);
    this.history.record(obs.time, status, threat, warnings.map((w) => w.type));
    // Hold over while there is no fix or while a spoofing/interference event is open.
    const holdover = !fix || status === 'alert' || this.history.open !== undefined;
    // A recovery whose own epoch had no clock measurement (the epoch that resolves an event is
    // still under suspicion when the clock is fed) is judged by the next measurement.
    if (this.unjudged && clockUpdate && clockUpdate.innovationVariance > 0) {
      this.unjudged.errorNs = clockUpdate.innovation * 1e9;
      this.unjudged.predictedSigmaNs = Math.sqrt(clockUpdate.innovationVariance) * 1e9;
      this.unjudged = undefined;
    }
    if (holdover && this.holdoverSince === undefined) {
      this.holdoverSince = obs.time;
      this.holdovers.push({ start: obs.time });
      if (this.holdovers.length > 1000) this.holdovers.shift();
    } else if (!holdover && this.holdoverSince !== undefined) {
      this.holdoverSince = undefined;
      const period = this.holdovers[this.holdovers.length - 1];
      period.end = obs.time;
      // The first clock measurement after holdover is the truth the prediction is judged against.
      if (clockUpdate && clockUpdate.innovationVariance > 0) {
        period.errorNs = clockUpdate.innovation * 1e9;
        period.predictedSigmaNs = Math.sqrt(clockUpdate.innovationVariance) * 1e9;
      } else this.unjudged = period;
    }
    const pred = this.clock.initialised ? this.clock.predict(obs.time) : undefined;
    const st = this.clock.state();
    const integrity = integrityScores(raim, fix, checks, holdover);
    const available = checks.filter((c) => c.available);
    const assessment: EpochAssessment = {
      time: obs.time,
      fix,
      filtered,
      noFixReason: raim.solution.fix ? undefined : withMissing(raim.solution.reason, missing),
      raim,
      velocity,
      checks,
      signalPower,
      spoofing: {
        status,
        threatType: status === 'clear' ? null : threat,
        // Confidence in the verdict: how far the deciding check is from its threshold.
        confidence: Math.round((status === 'clear' ? Math.min(1, ...available.map((c) => c.score * 2 - 0.5)) : Math.max(...warnings.map((c) => 1 - c.score))) * 1000) / 1000,
      },
      clock: {
        offsetNs: (pred?.offset ?? st.offset) * 1e9,
        driftNsPerHour: st.drift * 3600e9,
        sigmaNs: (pred?.sigma ?? st.offsetSigma) * 1e9,
        holdover,
        update: clockUpdate,
      },
      features,
      satellitesTracked: measurements.length,
      constellations: [...new Set((fix?.residuals ?? []).map((r) => r.constellation))].sort(),
      integrity,
    };
    this.lastAssessment = assessment;
    return assessment;
  }

  /** Holdover prediction at a GPS time: predicted clock offset and the error bound at `confidence`. */
  holdover(t: number, confidence = 0.95) {
    if (!this.clock.initialised) return undefined;
    const p = this.clock.predict(t, confidence);
    const since = this.clock.lastUpdate ?? t;
    return { ...p, ageS: t - since, oscillator: this.clock.oscillator, maxDriftPerS: OSCILLATORS[this.clock.oscillator].initialDrift };
  }
}

/** A no-fix reason with why tracked satellites could not be used, e.g. `(no valid ephemeris: 11)`. */
function withMissing(reason: string, missing: { sat: string; reason: string }[]): string {
  if (missing.length === 0) return reason;
  const counts = new Map<string, number>();
  for (const m of missing) counts.set(m.reason, (counts.get(m.reason) ?? 0) + 1);
  return `${reason} (${[...counts].map(([r, n]) => `${r}: ${n}`).join(', ')})`;
}

/** Mean C/N0 change (dB) since the previous epoch over the satellites tracked in both: rising and setting satellites do not move it. */
function cn0Change(prev: EpochMemory | undefined, meas: Map<string, SatMeasurement>): number {
  if (!prev) return 0;
  let sum = 0;
  let n = 0;
  for (const [sat, m] of meas) {
    const p = prev.meas.get(sat);
    if (m.cn0 === undefined || p?.cn0 === undefined) continue;
    sum += m.cn0 - p.cn0;
    n++;
  }
  return n ? sum / n : 0;
}

function classify(warnings: CheckResult[], sp: SignalPowerResult, nSats: number, fix: SppFix | undefined, prevFix: SppFix | undefined): ThreatType | null {
  if (warnings.length === 0) return null;
  const types = new Set(warnings.map((w) => w.type));
  const lowPower = sp.result === 'warning' && sp.measuredDbm < sp.expectedDbm;
  if (types.size === 1 && types.has('signal_power') && (lowPower || nSats < 4)) return 'jamming';
  const moved = fix && prevFix ? Math.hypot(fix.position[0] - prevFix.position[0], fix.position[1] - prevFix.position[1], fix.position[2] - prevFix.position[2]) : 0;
  if (types.has('clock_consistency') && moved < 20) return 'spoofing_time';
  if (types.has('doppler_consistency') || types.has('carrier_phase') || types.has('multi_constellation') || moved >= 20) return 'spoofing_position';
  if (types.has('signal_power')) return lowPower ? 'jamming' : 'spoofing_position';
  return 'anomaly';
}

/**
 * Integrity scores in [0, 100]. Position: the RAIM consistency 2^(-T/threshold) (0.5 when RAIM
 * cannot run, 0 with no fix) times a geometry factor min(1, 3/PDOP). Spoofing: the lowest score
 * of the available checks. Timing: the clock check's score, halved in holdover. Overall: the
 * geometric mean of the three, so that any one failing pulls it down.
 */
function integrityScores(raim: RaimResult, fix: SppFix | undefined, checks: CheckResult[], holdover: boolean) {
  let position = 0;
  if (fix) {
    const consistency = raim.available && raim.threshold ? 2 ** -(fix.sse / raim.threshold) : 0.5;
    position = consistency * Math.min(1, 3 / fix.dop.pdop);
  }
  const available = checks.filter((c) => c.available);
  const spoofing = available.length ? Math.min(...available.map((c) => c.score)) : 0.5;
  const clock = checks.find((c) => c.type === 'clock_consistency');
  const timing = (clock?.available ? clock.score : 0.5) * (holdover ? 0.5 : 1);
  const overall = Math.cbrt(position * spoofing * timing);
  const pct = (v: number) => Math.round(v * 1000) / 10;
  return { overall: pct(overall), position: pct(position), timing: pct(timing), spoofing: pct(spoofing) };
}
