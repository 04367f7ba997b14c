// Public API of the GNSS engine: parsers, positioning, integrity, time, spoofing checks, clock and simulator.
export { GnssInputError, type GnssErrorCode } from './errors.ts';
export { parseObs, type ObsFile, type ObsEpoch, type SatObservation } from './rinex/obs.ts';
export { parseNav } from './rinex/nav.ts';
export type { NavData, Ephemeris, KeplerEphemeris, GlonassEphemeris, IonoCoefficients } from './ephemeris/types.ts';
export { EphemerisStore, satelliteState } from './ephemeris/select.ts';
export { prepareEpoch, type SatMeasurement } from './measurements.ts';
export { solveSpp, type SppFix, type SppResult, type SppOptions, type Dop } from './spp.ts';
export { solveWithRaim, type RaimResult, type RaimOptions } from './raim.ts';
export { solveFile, type SolveFileResult, type EpochReport } from './solve.ts';
export * as time from './time.ts';
export { ecefToGeodetic, geodeticToEcef, type Vec3, type Geodetic } from './geodesy.ts';
