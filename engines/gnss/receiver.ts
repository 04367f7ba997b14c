// What a receiver reports per navigation epoch, whatever the protocol (NMEA, UBX, gpsd JSON).
import type { Constellation } from './constants.ts';

export interface ReceiverSatellite {
  /** RINEX-style id where the constellation is known (`G05`, `R66` uses the NMEA slot), else the protocol PRN. */
  id: string;
  constellation?: Constellation;
  prn: number;
  el?: number;
  az?: number;
  cn0?: number;
  used: boolean;
  /** Pseudorange residual of the receiver's own solution, metres, when reported (UBX NAV-SAT). */
  prResidual?: number;
}

/** A raw L1 measurement from the receiver (UBX RXM-RAWX, gpsd RAW). */
export interface RawMeasurement {
  sat: string;
  pseudorange?: number;
  carrierPhase?: number;
  doppler?: number;
  cn0?: number;
}

export interface ReceiverEpoch {
  source: 'nmea' | 'ubx' | 'gpsd';
  /** ISO 8601 UTC time of the epoch when the receiver gave one; time of day alone when it gave no date. */
  time?: string;
  timeOfDay?: string;
  /** GPS seconds since the GPS epoch, when week and time of week (or a full date) are known. */
  gpsTime?: number;
  /** 1 no fix, 2 two-dimensional, 3 three-dimensional (gpsd's `mode`). */
  mode: 1 | 2 | 3;
  lat?: number;
  lon?: number;
  altHae?: number;
  altMsl?: number;
  ecef?: [number, number, number];
  satellitesUsed?: number;
  satellites: ReceiverSatellite[];
  pdop?: number;
  hdop?: number;
  vdop?: number;
  gdop?: number;
  tdop?: number;
  speedMps?: number;
  trackDeg?: number;
  climbMps?: number;
  /** One-sigma accuracy estimates the receiver reported, metres. */
  horizontalAccuracy?: number;
  verticalAccuracy?: number;
  /** Receiver clock bias (ns) and drift (ns/s), UBX NAV-CLOCK or gpsd TOFF. */
  clockBiasNs?: number;
  clockDriftNsPerS?: number;
  leapSeconds?: number;
  raw: RawMeasurement[];
  /** Receiver time tag of the raw measurements, GPS seconds (RXM-RAWX rcvTow with its week). */
  rawTime?: number;
  /** Automatic gain control level, percent of range (UBX MON-RF), a jamming indicator. */
  agcPercent?: number;
  jammingIndicator?: number;
}

export function emptyEpoch(source: ReceiverEpoch['source']): ReceiverEpoch {
  return { source, mode: 1, satellites: [], raw: [] };
}
