// Physical and system constants shared by the GNSS engine (IS-GPS-200, Galileo OS SIS ICD, GLONASS ICD).

/** Speed of light in vacuum, m/s. */
export const CLIGHT = 299792458.0;
/** WGS 84 Earth gravitational constant (GPS), m^3/s^2. */
export const MU_GPS = 3.9860050e14;
/** Galileo Earth gravitational constant, m^3/s^2. */
export const MU_GAL = 3.986004418e14;
/** PZ-90 Earth gravitational constant (GLONASS), m^3/s^2. */
export const MU_GLO = 3.9860044e14;
/** Earth rotation rate, rad/s (WGS 84). */
export const OMEGA_E = 7.2921151467e-5;
/** Earth rotation rate used by GLONASS (PZ-90), rad/s. */
export const OMEGA_E_GLO = 7.292115e-5;
/** GLONASS second zonal harmonic and equatorial radius (PZ-90). */
export const J2_GLO = 1.0826257e-3;
export const RE_GLO = 6378136.0;
/** WGS 84 ellipsoid. */
export const WGS84_A = 6378137.0;
export const WGS84_F = 1 / 298.257223563;
/** GPS L1 carrier frequency, Hz, and wavelength, m. */
export const FREQ_L1 = 1575.42e6;
export const LAMBDA_L1 = CLIGHT / FREQ_L1;
/** GPS L2 and L5 (= Galileo E5a), Galileo E5b carrier frequencies, Hz. */
export const FREQ_L2 = 1227.6e6;
export const FREQ_L5 = 1176.45e6;
export const FREQ_E5B = 1207.14e6;
/** GLONASS G2 base frequency and channel spacing, Hz. */
export const FREQ_G2_BASE = 1246.0e6;
export const FREQ_G2_STEP = 0.4375e6;
/** GLONASS G1 base frequency and channel spacing, Hz. */
export const FREQ_G1_BASE = 1602.0e6;
export const FREQ_G1_STEP = 0.5625e6;
/** Relativistic clock correction constant F = -2 sqrt(mu) / c^2, s/m^0.5. */
export const REL_F = -4.442807633e-10;

export type Constellation = 'GPS' | 'Galileo' | 'GLONASS' | 'BeiDou' | 'QZSS' | 'SBAS';

/** RINEX system letter of each constellation. */
export const SYSTEM_LETTER: Record<Constellation, string> = {
  GPS: 'G',
  Galileo: 'E',
  GLONASS: 'R',
  BeiDou: 'C',
  QZSS: 'J',
  SBAS: 'S',
};

/** The constellation a satellite id (`G19`, `E07`, `R15`) belongs to, or undefined. */
export function constellationOf(sat: string): Constellation | undefined {
  switch (sat[0]) {
    case 'G':
      return 'GPS';
    case 'E':
      return 'Galileo';
    case 'R':
      return 'GLONASS';
    case 'C':
      return 'BeiDou';
    case 'J':
      return 'QZSS';
    case 'S':
      return 'SBAS';
    default:
      return undefined;
  }
}

/** Normalises a RINEX satellite token (`G 3`, ` 3`, `G03`) to the three-character id `G03`. */
export function satId(token: string, defaultSystem = 'G'): string {
  const t = token.trim();
  const letter = /^[A-Z]/.test(t) ? t[0] : defaultSystem;
  const num = Number.parseInt(/^[A-Z]/.test(t) ? t.slice(1) : t, 10);
  return `${letter}${String(num).padStart(2, '0')}`;
}
