// Anomaly score learned from clean data: a Gaussian model of per-epoch consistency features, scored by Mahalanobis distance.
import { chi2Quantile } from '../chi2.ts';
import { invert } from '../linalg.ts';
import { unavailable, verdict, type CheckResult } from './types.ts';

/**
 * Per-epoch features, each a consistency measure that is small and stationary on clean signals
 * wherever the receiver is: the mean C/N0 change since the previous epoch over the satellites
 * tracked in both (dB; absolute levels depend on the antenna and the satellites in view),
 * log(1 + RAIM statistic per degree of freedom), log(1 + mean Doppler residual in Hz),
 * log(1 + code-minus-carrier change in m), and the square root of the clock filter's
 * normalised innovation.
 */
export const FEATURE_NAMES = ['cn0_change_db', 'log_raim_per_dof', 'log_doppler_residual_hz', 'log_cmc_change_m', 'clock_innovation_sigma'] as const;

export type Features = number[];

export interface AnomalyModel {
  mean: number[];
  /** Inverse of the feature covariance (with a small ridge so that a constant feature cannot make it singular). */
  precision: number[][];
  samples: number;
  /**
   * D^2 above this warns: the larger of the chi-square quantile at `pfa` for the feature count
   * and three times the largest D^2 seen in training, because the features are not exactly Gaussian
   * (ratios and logarithms have heavier tails) and a threshold from the Gaussian alone would
   * raise false alarms on clean data.
   */
  threshold: number;
}

/** Fits the mean and covariance of clean-data feature vectors. */
export function trainAnomalyModel(samples: Features[], pfa = 1e-6, tailMargin = 3): AnomalyModel {
  const n = samples.length;
  const d = samples[0]?.length ?? 0;
  if (n < 5 * d) throw new Error(`anomaly model needs at least ${5 * d} clean samples, got ${n}`);
  const mean = new Array<number>(d).fill(0);
  for (const s of samples) for (let k = 0; k < d; k++) mean[k] += s[k] / n;
  const cov = Array.from({ length: d }, () => new Array<number>(d).fill(0));
  for (const s of samples) for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) cov[a][b] += ((s[a] - mean[a]) * (s[b] - mean[b])) / (n - 1);
  for (let k = 0; k < d; k++) cov[k][k] += 1e-4 + 0.01 * cov[k][k];
  const precision = invert(cov);
  if (!precision) throw new Error('anomaly model covariance is singular');
  const model = { mean, precision, samples: n, threshold: 0 };
  const worst = Math.max(...samples.map((f) => mahalanobis2(model, f)));
  model.threshold = Math.max(chi2Quantile(pfa, d), tailMargin * worst);
  return model;
}

/** Squared Mahalanobis distance of a feature vector from the clean-data model. */
export function mahalanobis2(model: AnomalyModel, f: Features): number {
  const d = f.map((v, k) => v - model.mean[k]);
  let s = 0;
  for (let a = 0; a < d.length; a++) for (let b = 0; b < d.length; b++) s += d[a] * model.precision[a][b] * d[b];
  return s;
}

export function anomalyCheck(model: AnomalyModel | undefined, f: Features | undefined): CheckResult {
  if (!model) return unavailable('ml_anomaly', 'D2', 0, 'no anomaly model');
  if (!f) return unavailable('ml_anomaly', 'D2', Math.round(model.threshold * 10) / 10, 'features incomplete this epoch');
  return verdict('ml_anomaly', mahalanobis2(model, f), Math.round(model.threshold * 10) / 10, 'D2', `Mahalanobis distance from ${model.samples} clean epochs`);
}
