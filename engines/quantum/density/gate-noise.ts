/**
 * The channels a noise model applies after a gate, as superoperators: depolarizing on the
 * gate's qubits (on each neighbouring pair for gates on three or more), then T1/T2 damping on
 * each qubit over the gate's duration. The JavaScript and native density-matrix simulations
 * both apply exactly this list.
 */
import type { NoiseModel } from '../noise.ts';
import { dampingParams, gateTimeNs, thermalKraus } from '../noise.ts';
import { cachedSuperop, depolarizingKraus } from './channels.ts';

export interface GateChannel {
  qubits: number[];
  superop: Float64Array;
}

export function gateNoiseChannels(qubits: number[], noise: NoiseModel): GateChannel[] {
  const out: GateChannel[] = [];
  if (qubits.length === 1) {
    if (noise.depol1 > 0) out.push({ qubits, ...cachedSuperop(`depol1 ${noise.depol1}`, () => depolarizingKraus(noise.depol1, 1), 1) });
  } else if (noise.depol2 > 0) {
    const s = cachedSuperop(`depol2 ${noise.depol2}`, () => depolarizingKraus(noise.depol2, 2), 2);
    for (let j = 0; j + 1 < qubits.length; j++) out.push({ qubits: [qubits[j]!, qubits[j + 1]!], ...s });
  }
  const { gamma, lambda } = dampingParams(noise, gateTimeNs(noise, qubits.length));
  if (gamma > 0 || lambda > 0) {
    const k = cachedSuperop(`thermal ${gamma} ${lambda}`, () => thermalKraus(gamma, lambda), 1);
    for (const q of qubits) out.push({ qubits: [q], ...k });
  }
  return out;
}
