// Paths to the shared GNSS fixtures and a loader, for tests and the benchmark.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RINEX_DIR = fileURLToPath(new URL('../../../fixtures/gnss/rinex/', import.meta.url));
export const GPSD_DIR = fileURLToPath(new URL('../../../fixtures/gnss/gpsd/', import.meta.url));

/** The three fixture stations: observation file, navigation file. */
export const STATIONS = [
  { name: '0759', obs: '07590920.05o', nav: '07590920.05n' },
  { name: '3040', obs: '30400920.05o', nav: '30400920.05n' },
  { name: 'SLAC', obs: 'slac1180.21o', nav: 'brdc1180.21n' },
] as const;

export function rinexText(name: string): string {
  return readFileSync(RINEX_DIR + name, 'latin1');
}

export function gpsdLog(name: string): Buffer {
  return readFileSync(GPSD_DIR + name);
}
