// Scenario definitions the simulator can inject: spoofing, jamming, a satellite fault and a loss of signal.

/**
 * Times are seconds from the start of the simulation; `end` absent means until the run stops.
 *
 * - `spoofer_position`: from `start` a transmitter replaces the GPS signals with ones for a
 *   false position `offsetEnu` metres from the site (moving on at `driftMps` east-north-up);
 *   it aligns its carrier phase with the genuine signals at capture but steps the code.
 * - `spoofer_time`: the same transmitter shifts receiver time by `offsetNs`, growing at `rateNsPerS`.
 *   With `power: 'overpowered'` all spoofed signals arrive `excessDb` above the genuine level
 *   and equally strong (one antenna); with `'matched'` each keeps its genuine C/N0.
 * - `jamming`: broadband interference at `jsDb` jammer-to-signal ratio lowers C/N0 and the AGC;
 *   satellites below the tracking threshold are lost.
 * - `satellite_fault`: satellite `sat` gets a clock error of `biasM` plus `rampMps` per second.
 * - `signal_loss`: no signal at all (antenna cut): the receiver must hold over.
 */
export type Scenario =
  | { kind: 'spoofer_position'; start: number; end?: number; offsetEnu: [number, number, number]; driftMps?: [number, number, number]; power: 'overpowered' | 'matched'; excessDb?: number }
  | { kind: 'spoofer_time'; start: number; end?: number; offsetNs: number; rateNsPerS?: number; power: 'overpowered' | 'matched'; excessDb?: number }
  | { kind: 'jamming'; start: number; end?: number; jsDb: number }
  | { kind: 'satellite_fault'; start: number; end?: number; sat: string; biasM: number; rampMps?: number }
  | { kind: 'signal_loss'; start: number; end?: number };

export function isActive(s: Scenario, elapsed: number): boolean {
  return elapsed >= s.start && (s.end === undefined || elapsed < s.end);
}
