// Signal power check: C/N0 level against an elevation model, C/N0 uniformity across satellites, and receiver AGC.
import { verdict, unavailable, type CheckResult } from './types.ts';

/** Thermal noise density at 290 K, dBm/Hz: received power = C/N0 + N0. */
export const NOISE_DENSITY_DBM_HZ = -174;

/**
 * C/N0 (dB-Hz) an open-sky patch antenna receives from a healthy L1 C/A signal at elevation `el`
 * (radians): about 37 dB-Hz at the horizon rising to about 49 at the zenith (antenna gain
 * pattern times free-space loss; IS-GPS-200 minimum power of -128.5 dBm plus typical margins).
 */
export function expectedCn0(el: number): number {
  return 37 + 12 * Math.sin(Math.max(0, el));
}

export interface SignalSample {
  cn0: number;
  /** Elevation, radians, when known. */
  el?: number;
}

export interface SignalPowerResult extends CheckResult {
  meanCn0: number;
  stdResidualDb: number;
  measuredDbm: number;
  expectedDbm: number;
}

/**
 * Warns on any of: mean C/N0 more than `excessDb` above the model (an overpowered transmitter),
 * residuals to the model more uniform than `uniformDb` across five or more satellites (one
 * antenna sending every signal), mean more than `deficitDb` below it (jamming or blockage), or
 * AGC more than `agcDropPercent` below its calibrated level. The statistic is the largest of
 * these excursions divided by its own limit, so the threshold is 1.
 */
export function signalPowerCheck(
  samples: SignalSample[],
  options: { agcPercent?: number; agcBaselinePercent?: number; excessDb?: number; deficitDb?: number; uniformDb?: number; agcDropPercent?: number } = {},
): SignalPowerResult {
  const valid = samples.filter((s) => s.cn0 > 0);
  if (valid.length < 3) {
    return { ...unavailable('signal_power', 'ratio', 1, `${valid.length} satellites with C/N0`), meanCn0: 0, stdResidualDb: 0, measuredDbm: 0, expectedDbm: 0 };
  }
  const excessDb = options.excessDb ?? 6;
  const deficitDb = options.deficitDb ?? 9;
  const uniformDb = options.uniformDb ?? 0.5;
  const agcDrop = options.agcDropPercent ?? 20;
  const residuals = valid.map((s) => s.cn0 - (s.el === undefined ? expectedCn0(Math.PI / 4) : expectedCn0(s.el)));
  const meanRes = residuals.reduce((a, b) => a + b, 0) / residuals.length;
  const std = Math.sqrt(residuals.reduce((a, b) => a + (b - meanRes) ** 2, 0) / (residuals.length - 1));
  const meanCn0 = valid.reduce((a, s) => a + s.cn0, 0) / valid.length;
  const expectedMean = meanCn0 - meanRes;
  const reasons: [number, string][] = [
    [meanRes / excessDb, `C/N0 ${meanRes.toFixed(1)} dB above the elevation model`],
    [-meanRes / deficitDb, `C/N0 ${(-meanRes).toFixed(1)} dB below the elevation model`],
  ];
  if (valid.length >= 5 && valid.every((s) => s.el !== undefined)) reasons.push([uniformDb / Math.max(std, 1e-3), `C/N0 spread only ${std.toFixed(2)} dB across ${valid.length} satellites`]);
  if (options.agcPercent !== undefined && options.agcBaselinePercent !== undefined) {
    const drop = options.agcBaselinePercent - options.agcPercent;
    reasons.push([Math.abs(drop) / agcDrop, `AGC ${options.agcPercent.toFixed(0)} % against ${options.agcBaselinePercent.toFixed(0)} % calibrated`]);
  }
  reasons.sort((a, b) => b[0] - a[0]);
  const [stat, why] = reasons[0];
  return {
    ...verdict('signal_power', stat, 1, 'ratio', why),
    meanCn0,
    stdResidualDb: std,
    measuredDbm: meanCn0 + NOISE_DENSITY_DBM_HZ,
    expectedDbm: expectedMean + NOISE_DENSITY_DBM_HZ,
  };
}
