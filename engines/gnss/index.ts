// Public API of the GNSS engine: parsers, positioning, integrity, time, spoofing checks, clock and simulator.
/**
 * Solve a RINEX pair (the `lattice gnss solve` contract shape):
 * @example
 * const { epochs, summary } = solveFile(parseObs(obsText), parseNav(navText));
 * epochs[0]; // {time, fix, latitude, longitude, altitude, clock_bias_m, pdop, ..., raim}
 *
 * Replay a receiver log, and solve its raw measurements with the engine when it can:
 * @example
 * const replay = replayLog(readFileSync('ublox.log'));
 * replay.epochs.map((e) => [e.time, e.lat, e.lon, e.satellitesUsed]);
 * solveReplay(replay, { nav: parseNav(navText) });
 *
 * Run the simulator (or any observation source) through the full pipeline:
 * @example
 * const sim = new ConstellationSimulator({ site: { lat: 37.4165, lon: -122.2042, height: 64 },
 *   scenarios: [{ kind: 'spoofer_time', start: 60, offsetNs: 300, power: 'matched' }] });
 * const engine = new GnssEngine({ nav: sim.nav, oscillator: 'OCXO', anomalyModel: defaultAnomalyModel() });
 * const a = engine.process(sim.step().obs);
 * positionReport(a); integrityReport(a); spoofingReport(a); timingReport(engine, a.time);
 *
 * Time scales:
 * @example
 * time.gpsToIso(time.fromWeekTow(2048, 0)); // '2019-04-06T23:59:42.000Z'
 */
export { GnssInputError, type GnssErrorCode } from './errors.ts';
export { parseObs, type ObsFile, type ObsEpoch, type SatObservation } from './rinex/obs.ts';
export { parseNav } from './rinex/nav.ts';
export type { NavData, Ephemeris, KeplerEphemeris, GlonassEphemeris, IonoCoefficients } from './ephemeris/types.ts';
export { EphemerisStore, satelliteState } from './ephemeris/select.ts';
export { prepareEpoch, type SatMeasurement } from './measurements.ts';
export { solveSpp, type SppFix, type SppResult, type SppOptions, type Dop } from './spp.ts';
export { solveWithRaim, type RaimResult, type RaimOptions } from './raim.ts';
export { solveFile, type SolveFileResult, type EpochReport } from './solve.ts';
export { HatchFilter, type HatchOptions, type SmoothedObservation, type ResetReason } from './smoothing.ts';
export { PositionFilter, type Dynamics, type KalmanFix, type KalmanOptions } from './kalman.ts';
export { FilteredPositioning, type PositioningMode, type PositioningOptions } from './positioning.ts';
export * as time from './time.ts';
export { gpsToIso, utcToGps, gpsWeekTow, fromWeekTow, resolveWeekRollover, LEAP_SECONDS } from './time.ts';
export { ecefToGeodetic, geodeticToEcef, type Vec3, type Geodetic } from './geodesy.ts';
export { parseNmea, type NmeaSentence } from './nmea.ts';
export { NmeaEpochAssembler } from './nmea-stream.ts';
export { splitUbx, encodeUbx, type UbxFrame } from './ubx.ts';
export { UbxEpochAssembler } from './ubx-stream.ts';
export { replayLog, solveReplay, rawToObs, type ReplayResult } from './replay.ts';
export { LnavDecoder } from './lnav.ts';
export { summariseReplay, type ReplayEpochReport } from './replay-summary.ts';
export type { ReceiverEpoch, ReceiverSatellite, RawMeasurement } from './receiver.ts';
export { GpsdEpochAssembler, parseGpsdJson, streamGpsd, type GpsdStreamOptions } from './gpsd-client.ts';
export { signalPowerCheck, expectedCn0 } from './spoofing/signal-power.ts';
export type { CheckResult, CheckType } from './spoofing/types.ts';
export { solveVelocity, type VelocityFix } from './velocity.ts';
export { ClockFilter, OSCILLATORS, clockProcessNoise, type OscillatorClass } from './clock.ts';
export { GnssEngine, type EngineOptions, type EpochAssessment } from './engine.ts';
export { EventHistory, type SpoofingEvent, type SpoofingStatus, type ThreatType } from './spoofing/history.ts';
export { trainAnomalyModel, anomalyCheck, FEATURE_NAMES, type AnomalyModel } from './spoofing/anomaly.ts';
export { ConstellationSimulator, type SimulatorConfig, type SimEpoch } from './simulator/simulator.ts';
export { parseScenario, type Scenario } from './simulator/scenarios.ts';
export { defaultAnomalyModel } from './simulator/training.ts';
export * from './report.ts';
