/**
 * Whether the quantum engine actually runs: a tiny noisy circuit simulated on demand and
 * remembered for 30 s, so that health routes stay cheap under polling.
 */
import { probeQuantumEngine } from './quantum-signature.ts';

const TTL_MS = 30_000;

export class QuantumProbe {
  private last: { ok: boolean; at: number } | null = null;
  private running: Promise<boolean> | null = null;

  async available(): Promise<boolean> {
    if (this.last && Date.now() - this.last.at < TTL_MS) return this.last.ok;
    this.running ??= probeQuantumEngine()
      .catch(() => false)
      .then((ok) => {
        this.last = { ok, at: Date.now() };
        this.running = null;
        return ok;
      });
    return this.running;
  }
}
