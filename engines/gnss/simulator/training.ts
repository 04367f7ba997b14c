// Trains the default anomaly model on a clean, seeded simulator run (computed once per process).
import { GnssEngine } from '../engine.ts';
import { trainAnomalyModel, type AnomalyModel } from '../spoofing/anomaly.ts';
import { ConstellationSimulator } from './simulator.ts';

let cached: AnomalyModel | undefined;

/**
 * The anomaly model of the engine: feature statistics of `epochs` clean simulated epochs at two
 * fixed sites and seeds (no scenario), so that it is reproducible; about 3 s of CPU for 400 epochs.
 */
export function defaultAnomalyModel(epochs = 400): AnomalyModel {
  if (cached && cached.samples >= epochs - 20) return cached;
  const features: number[][] = [];
  // Two sites and seeds, so that the model does not learn one sky.
  const runs = [
    { site: { lat: 46.5197, lon: 6.5657, height: 400 }, seed: 20240101, startGps: 1.4e9 },
    { site: { lat: -23.5505, lon: -46.6333, height: 760 }, seed: 20240102, startGps: 1.41e9 },
  ];
  for (const run of runs) {
    const sim = new ConstellationSimulator(run);
    const engine = new GnssEngine({ nav: sim.nav, agcBaselinePercent: 50 });
    for (let k = 0; k < epochs / runs.length; k++) {
      const e = sim.step();
      const a = engine.process(e.obs, { agcPercent: e.agcPercent });
      if (a.features) features.push(a.features);
    }
  }
  cached = trainAnomalyModel(features);
  return cached;
}
