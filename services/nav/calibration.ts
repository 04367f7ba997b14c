/**
 * Holdover calibration over the recent clock history: a weighted straight-line fit of the
 * receiver clock offsets measured by the position solutions (offset = a + drift * t). The
 * drift and its standard error come from the fit (the error scaled by the residual scatter, so
 * it reflects the clock's real wander, not only the model's noise); the improvement is how much
 * that uncertainty shrank against the previous calibration.
 */

export interface ClockSample {
  /** GPS seconds, offset (s) and its one-sigma (s). */
  t: number;
  offset: number;
  sigma: number;
}

export interface ClockFit {
  samples: number;
  spanS: number;
  /** s/s and its one-sigma. */
  drift: number;
  driftSigma: number;
  residualRmsS: number;
}

/** The last hour (at most 3600 samples) of clock offsets measured while locked. */
export class ClockHistory {
  private readonly samples: ClockSample[] = [];

  add(t: number, offset: number, sigma: number): void {
    const last = this.samples[this.samples.length - 1];
    // A jump of the whole history (the filter re-initialised after a clock step) starts a new one.
    if (last && (t <= last.t || Math.abs(offset - last.offset) > 1e-6)) this.samples.length = 0;
    this.samples.push({ t, offset, sigma });
    if (this.samples.length > 3600) this.samples.shift();
  }

  get size(): number {
    return this.samples.length;
  }

  /** Weighted least-squares fit over the samples of the last `windowS` seconds; null with fewer than 10. */
  fit(windowS = 3600): ClockFit | null {
    const end = this.samples[this.samples.length - 1]?.t;
    if (end === undefined) return null;
    const s = this.samples.filter((x) => x.t >= end - windowS);
    if (s.length < 10) return null;
    let sw = 0;
    let st = 0;
    let so = 0;
    for (const x of s) {
      const w = 1 / (x.sigma * x.sigma);
      sw += w;
      st += w * x.t;
      so += w * x.offset;
    }
    const tm = st / sw;
    const om = so / sw;
    let stt = 0;
    let sto = 0;
    for (const x of s) {
      const w = 1 / (x.sigma * x.sigma);
      stt += w * (x.t - tm) ** 2;
      sto += w * (x.t - tm) * (x.offset - om);
    }
    if (stt <= 0) return null;
    const drift = sto / stt;
    let chi2 = 0;
    let rss = 0;
    for (const x of s) {
      const res = x.offset - (om + drift * (x.t - tm));
      chi2 += res * res / (x.sigma * x.sigma);
      rss += res * res;
    }
    const scale = Math.max(1, chi2 / (s.length - 2));
    return {
      samples: s.length,
      spanS: s[s.length - 1]!.t - s[0]!.t,
      drift,
      driftSigma: Math.sqrt(scale / stt),
      residualRmsS: Math.sqrt(rss / s.length),
    };
  }
}
