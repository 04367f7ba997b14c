// Broadcast ephemeris records as decoded from RINEX navigation files or receiver subframes.
import type { Vec3 } from '../geodesy.ts';

/** Keplerian broadcast elements (GPS LNAV, Galileo I/NAV and F/NAV, QZSS). Times in GPS seconds. */
export interface KeplerEphemeris {
  kind: 'kepler';
  sat: string;
  toc: number;
  af0: number;
  af1: number;
  af2: number;
  iode: number;
  crs: number;
  deltaN: number;
  m0: number;
  cuc: number;
  e: number;
  cus: number;
  sqrtA: number;
  toe: number;
  cic: number;
  omega0: number;
  cis: number;
  i0: number;
  crc: number;
  omega: number;
  omegaDot: number;
  idot: number;
  /** User range accuracy (GPS URA) or signal-in-space accuracy (Galileo SISA), metres. */
  accuracy: number;
  health: number;
  /** Group delay for the single-frequency user, seconds (GPS TGD, Galileo BGD E1/E5b). */
  tgd: number;
}

/** GLONASS broadcast state vector in PZ-90 (treated as WGS 84 at this accuracy). Times in GPS seconds. */
export interface GlonassEphemeris {
  kind: 'glonass';
  sat: string;
  toe: number;
  /** Satellite clock bias (-TauN), seconds, and relative frequency bias GammaN. */
  clockBias: number;
  gammaN: number;
  pos: Vec3;
  vel: Vec3;
  acc: Vec3;
  health: number;
  frequencyNumber: number;
}

export type Ephemeris = KeplerEphemeris | GlonassEphemeris;

/** Klobuchar coefficients alpha0..3 and beta0..3 from the navigation message. */
export interface IonoCoefficients {
  alpha: [number, number, number, number];
  beta: [number, number, number, number];
}

export interface NavData {
  ephemerides: Ephemeris[];
  iono?: IonoCoefficients;
  /** GPS - UTC from the header, seconds, when given. */
  leapSeconds?: number;
}
