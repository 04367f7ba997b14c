/**
 * Configuration of the positioning service, read from the environment when the service starts
 * (a bad value stops the start with a message naming the variable):
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `LATTICE_NAV_SOURCE` | `simulator` | `simulator`, `gpsd://host:port[?nav=FILE]`, or `log:PATH[?nav=FILE][&loop=1]` |
 * | `LATTICE_NAV_SITE` | `51.477928,-0.001545,45` | simulator site: latitude, longitude (degrees), height (m) |
 * | `LATTICE_NAV_RATE` | `1` | source seconds per wall second (simulator and log replay) |
 * | `LATTICE_NAV_OSCILLATOR` | `OCXO` | receiver oscillator class: TCXO, OCXO, rubidium |
 */
import type { OscillatorClass } from '../../engines/gnss/clock.ts';

export interface NavSettings {
  source: string;
  site: { lat: number; lon: number; height: number };
  rate: number;
  oscillator: OscillatorClass;
  seed?: number;
  /** Requests per minute per key (the plan's 600). */
  requestsPerMinute: number;
  /** Clean simulated epochs for the anomaly model (0 leaves ml_anomaly unavailable). */
  anomalyEpochs: number;
  /** Epoch intervals of silence after which the source counts as lost. */
  silenceIntervals: number;
  /** How often the operator's scenario switch is read, ms. */
  controlPollMs: number;
}

export const DEFAULT_SETTINGS: NavSettings = {
  source: 'simulator',
  site: { lat: 51.477928, lon: -0.001545, height: 45 },
  rate: 1,
  oscillator: 'OCXO',
  requestsPerMinute: 600,
  anomalyEpochs: 400,
  silenceIntervals: 3,
  controlPollMs: 500,
};

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): NavSettings {
  const s: NavSettings = { ...DEFAULT_SETTINGS };
  if (env.LATTICE_NAV_SOURCE) s.source = env.LATTICE_NAV_SOURCE;
  if (env.LATTICE_NAV_SITE) {
    const parts = env.LATTICE_NAV_SITE.split(',').map((x) => Number(x.trim()));
    const [lat, lon, height] = parts;
    if (parts.length !== 3 || !parts.every(Number.isFinite) || Math.abs(lat!) > 90 || Math.abs(lon!) > 180 || height! < -500 || height! > 20000) {
      throw new Error(`LATTICE_NAV_SITE must be "latitude,longitude,height" in degrees and metres, got "${env.LATTICE_NAV_SITE}"`);
    }
    s.site = { lat: lat!, lon: lon!, height: height! };
  }
  if (env.LATTICE_NAV_RATE) {
    const rate = Number(env.LATTICE_NAV_RATE);
    if (!Number.isFinite(rate) || rate <= 0 || rate > 1000) throw new Error(`LATTICE_NAV_RATE must be a number above 0 and at most 1000, got "${env.LATTICE_NAV_RATE}"`);
    s.rate = rate;
  }
  if (env.LATTICE_NAV_OSCILLATOR) {
    const o = env.LATTICE_NAV_OSCILLATOR;
    if (o !== 'TCXO' && o !== 'OCXO' && o !== 'rubidium') throw new Error(`LATTICE_NAV_OSCILLATOR must be TCXO, OCXO or rubidium, got "${o}"`);
    s.oscillator = o;
  }
  return s;
}
