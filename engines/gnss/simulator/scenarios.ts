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

const KINDS = ['spoofer_position', 'spoofer_time', 'jamming', 'satellite_fault', 'signal_loss'] as const;

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isVec = (v: unknown): v is [number, number, number] => Array.isArray(v) && v.length === 3 && v.every(isNum);

/**
 * Checks an untrusted scenario object (from a command line or a request) and returns it typed,
 * or throws an Error naming the first field that is wrong.
 */
export function parseScenario(value: unknown): Scenario {
  if (typeof value !== 'object' || value === null) throw new Error('a scenario must be an object');
  const o = value as Record<string, unknown>;
  if (!KINDS.includes(o.kind as (typeof KINDS)[number])) throw new Error(`scenario kind must be one of ${KINDS.join(', ')}`);
  if (!isNum(o.start) || o.start < 0) throw new Error('scenario start must be a number of seconds >= 0');
  if (o.end !== undefined && (!isNum(o.end) || o.end <= o.start)) throw new Error('scenario end must be a number of seconds after start');
  const power = () => {
    if (o.power !== 'overpowered' && o.power !== 'matched') throw new Error('scenario power must be "overpowered" or "matched"');
    if (o.excessDb !== undefined && (!isNum(o.excessDb) || o.excessDb < 0 || o.excessDb > 40)) throw new Error('scenario excessDb must be 0 to 40');
  };
  switch (o.kind) {
    case 'spoofer_position':
      if (!isVec(o.offsetEnu)) throw new Error('spoofer_position needs offsetEnu [east, north, up] in metres');
      if (o.driftMps !== undefined && !isVec(o.driftMps)) throw new Error('spoofer_position driftMps must be [east, north, up] in m/s');
      power();
      break;
    case 'spoofer_time':
      if (!isNum(o.offsetNs)) throw new Error('spoofer_time needs offsetNs');
      if (o.rateNsPerS !== undefined && !isNum(o.rateNsPerS)) throw new Error('spoofer_time rateNsPerS must be a number');
      power();
      break;
    case 'jamming':
      if (!isNum(o.jsDb) || o.jsDb < 0 || o.jsDb > 80) throw new Error('jamming needs jsDb from 0 to 80');
      break;
    case 'satellite_fault':
      if (typeof o.sat !== 'string' || !/^[GERCJ]\d{2}$/.test(o.sat)) throw new Error('satellite_fault needs sat like "G10"');
      if (!isNum(o.biasM)) throw new Error('satellite_fault needs biasM');
      if (o.rampMps !== undefined && !isNum(o.rampMps)) throw new Error('satellite_fault rampMps must be a number');
      break;
    default:
      break;
  }
  return o as unknown as Scenario;
}
