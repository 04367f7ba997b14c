/**
 * The measured average response time `/api/v2/status` reports: every answered request of this
 * process (Fastify's own elapsed time, from the request's arrival to the end of its reply),
 * averaged over the last WINDOW requests.
 */
const WINDOW = 1000;

export class ResponseTimes {
  private readonly samples = new Float64Array(WINDOW);
  private count = 0;
  private sum = 0;

  record(ms: number): void {
    const slot = this.count % WINDOW;
    if (this.count >= WINDOW) this.sum -= this.samples[slot]!;
    this.samples[slot] = ms;
    this.sum += ms;
    this.count++;
  }

  /** Milliseconds, rounded to 0.01; null before the first request. */
  average(): number | null {
    const n = Math.min(this.count, WINDOW);
    return n === 0 ? null : Math.round((this.sum / n) * 100) / 100;
  }
}
