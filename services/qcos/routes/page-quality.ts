/**
 * The measured counts against the circuit's noiseless distribution, for a job's page. The job's
 * own quality metrics compare the backend's distribution with the ideal one, which is exactly 0
 * apart on a noiseless simulator; what a reader of a histogram asks is how far the shots drawn
 * are from the ideal, which finite sampling makes nonzero: the total variation distance
 * ½ Σ |p − q| between the ideal p and the measured frequencies q, beside what sampling alone
 * gives on average (½ Σ √(2 p (1 − p) / (π N)) for N shots, the mean of |p̂ − p| of a binomial in
 * its normal approximation), so that "small" has a scale.
 */
import { parseQasm, run, type Circuit } from '../../../engines/quantum/index.ts';

/** Largest circuit whose ideal distribution a page view computes (a statevector of 2^20 amplitudes). */
export const MEASURED_TVD_MAX_QUBITS = 20;

export interface MeasuredDistance {
  tvd: number;
  /** Mean TVD that sampling `shots` shots from the ideal distribution gives by itself. */
  samplingTvd: number;
  shots: number;
}

/** Measurements only at the end of each qubit's wire, no classical conditions: the outcome distribution is the final state's. */
function measuredAtEnd(c: Circuit): boolean {
  const measured = new Set<number>();
  for (const op of c.ops) {
    if (op.kind === 'barrier') continue;
    if ('condition' in op && op.condition) return false;
    if (op.kind === 'measure') measured.add(op.qubit);
    else if (op.kind === 'reset' ? measured.has(op.qubit) : op.qubits.some((q) => measured.has(q))) return false;
  }
  return measured.size > 0;
}

/** The distance, or null when the circuit is too large, measures mid-circuit, or cannot be read. */
export function measuredDistance(qasm: string, counts: Record<string, number>): MeasuredDistance | null {
  let c: Circuit;
  try {
    c = parseQasm(qasm);
  } catch {
    return null;
  }
  if (c.numQubits > MEASURED_TVD_MAX_QUBITS || c.numClbits > 20 || !measuredAtEnd(c)) return null;
  const ideal = run(c, { shots: 0, seed: 1, probabilities: true }).probabilities;
  if (!ideal) return null;
  const shots = Object.values(counts).reduce((a, b) => a + b, 0);
  if (!shots) return null;
  let sum = 0;
  let sampling = 0;
  for (const k of new Set([...Object.keys(ideal), ...Object.keys(counts)])) {
    const p = ideal[k] ?? 0;
    sum += Math.abs(p - (counts[k] ?? 0) / shots);
    sampling += Math.sqrt((2 * p * (1 - p)) / (Math.PI * shots));
  }
  return { tvd: sum / 2, samplingTvd: sampling / 2, shots };
}
