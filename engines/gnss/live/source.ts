// A live receiver source: epochs arriving in real time from the simulator, gpsd or a replayed log.
import type { NavData } from '../ephemeris/types.ts';
import type { ReceiverEpoch } from '../receiver.ts';
import type { ObsEpoch } from '../rinex/obs.ts';

/** One epoch as the source delivers it. */
export interface LiveEpoch {
  /** Observations the engine solves itself (simulator, RINEX, UBX RXM-RAWX, gpsd RAW with ephemerides). */
  obs?: ObsEpoch;
  /** What the receiver reported (NMEA, UBX NAV, gpsd TPV/SKY), when the source is a receiver. */
  receiver?: ReceiverEpoch;
  /** GPS time of the epoch (receiver time tag), seconds. */
  gpsTime: number;
  agcPercent?: number;
  /** Navigation data to use from this epoch on (the ephemerides known so far). */
  nav?: NavData;
}

export interface LiveSink {
  epoch(e: LiveEpoch): void;
  /** The source connected, ended or failed; `message` says why in words. */
  status(s: { connected: boolean; message: string }): void;
}

/**
 * A source of epochs that runs by itself once started: the service solves each epoch as it
 * arrives. `rate` (1 = real time) speeds a simulation or a replay up for tests and demos.
 *
 * @example
 * const src = new SimulatorSource({ site: { lat: 46.52, lon: 6.57, height: 400 } });
 * src.start({ epoch: (e) => engine.process(e.obs!), status: (s) => console.log(s.message) });
 */
export interface LiveSource {
  readonly kind: 'simulator' | 'gpsd' | 'log';
  /** Words for /health and the logs: `simulator at 46.52,6.57`, `gpsd://host:2947`, `log ubx.log`. */
  readonly description: string;
  /** Nominal seconds of GPS time between epochs (used to notice a silent source). */
  readonly intervalS: number;
  /** Source seconds per wall-clock second. */
  readonly rate: number;
  start(sink: LiveSink): void;
  stop(): Promise<void>;
}

/** Scenarios an operator can switch on a simulator source (never exposed as a public route). */
export const OPERATOR_SCENARIOS = ['spoofing', 'jamming', 'signal-loss', 'clear'] as const;
export type OperatorScenario = (typeof OPERATOR_SCENARIOS)[number];

export function isOperatorScenario(v: unknown): v is OperatorScenario {
  return typeof v === 'string' && (OPERATOR_SCENARIOS as readonly string[]).includes(v);
}
