// Live receiver sources and how a configuration string names one.
import { GpsdSource } from './gpsd-source.ts';
import { LogSource } from './log-source.ts';
import { SimulatorSource } from './simulator-source.ts';
import type { LiveSource } from './source.ts';

export * from './source.ts';
export { SimulatorSource, operatorScenario, type SimulatorSourceOptions } from './simulator-source.ts';
export { LogSource, loadLogEpochs, type LogSourceOptions } from './log-source.ts';
export { GpsdSource, type GpsdSourceOptions } from './gpsd-source.ts';

export interface SourceSettings {
  /** `simulator` (default), `gpsd://host:port[?nav=FILE]`, or `log:PATH[?nav=FILE][&loop=1]`. */
  source: string;
  /** Site of the simulator: latitude, longitude (degrees), height (m). */
  site: { lat: number; lon: number; height: number };
  /** Source seconds per wall second for the simulator and log replays (default 1). */
  rate: number;
  seed?: number;
}

/**
 * Builds the source a configuration string names; throws an Error that quotes the string when
 * it is not one of the three forms.
 *
 * @example
 * createSource({ source: 'gpsd://127.0.0.1:2947', site, rate: 1 });
 * createSource({ source: 'log:/data/rover.ubx', site, rate: 1 });
 * createSource({ source: 'log:/data/site.21o?nav=/data/brdc.21n', site, rate: 10 });
 */
export function createSource(settings: SourceSettings): LiveSource {
  const s = settings.source.trim();
  if (s === '' || s === 'simulator') return new SimulatorSource({ site: settings.site, rate: settings.rate, seed: settings.seed });
  const [base, query = ''] = s.split('?', 2) as [string, string?];
  const params = new URLSearchParams(query);
  if (base.startsWith('gpsd://')) {
    const m = /^gpsd:\/\/([^:/]+|\[[^\]]+\])(?::(\d{1,5}))?\/?$/.exec(base);
    if (!m) throw new Error(`source "${s}": expected gpsd://host:port`);
    const port = m[2] ? Number(m[2]) : 2947;
    if (port < 1 || port > 65535) throw new Error(`source "${s}": port must be 1 to 65535`);
    return new GpsdSource({ host: m[1]!.replace(/^\[|\]$/g, ''), port, nav: params.get('nav') ?? undefined });
  }
  if (base.startsWith('log:')) {
    const path = base.slice(4);
    if (!path) throw new Error(`source "${s}": expected log:PATH`);
    return new LogSource({ path, nav: params.get('nav') ?? undefined, rate: settings.rate, loop: params.get('loop') === '1' || params.get('loop') === 'true' });
  }
  throw new Error(`source "${s}": expected simulator, gpsd://host:port or log:PATH[?nav=FILE]`);
}
