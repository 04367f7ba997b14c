/**
 * The anomaly model a receiver starts with. The default one (400 clean simulated epochs,
 * engines/gnss/simulator/training.ts) is a fixed fit, as the simulator run it comes from is
 * seeded: its figures are stored in anomaly-model-fit.ts instead of being trained on every
 * start (two thirds of a second of CPU on the main thread, before any service may answer).
 * Any other count of epochs is trained at start as before. anomaly-model.test.ts checks that
 * the stored fit is what training gives now; after a change to the engine's features, write it
 * again with `node --import tsx services/nav/anomaly-model.ts`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultAnomalyModel } from '../../engines/gnss/simulator/training.ts';
import type { AnomalyModel } from '../../engines/gnss/spoofing/anomaly.ts';
import { STORED_FIT, STORED_FIT_EPOCHS } from './anomaly-model-fit.ts';

/** The model of `epochs` clean epochs: the stored fit for the default count, else trained now. */
export function anomalyModelFor(epochs: number): AnomalyModel {
  if (epochs === STORED_FIT_EPOCHS) return structuredClone(STORED_FIT);
  return defaultAnomalyModel(epochs);
}

/** The source of anomaly-model-fit.ts for the model trained now on `epochs` epochs. */
export function storedFitSource(epochs: number): string {
  const model = defaultAnomalyModel(epochs);
  return `// Written by services/nav/anomaly-model.ts from a training run (see there); do not edit by hand.
import type { AnomalyModel } from '../../engines/gnss/spoofing/anomaly.ts';

export const STORED_FIT_EPOCHS = ${epochs};

export const STORED_FIT: AnomalyModel = {
  mean: ${JSON.stringify(model.mean)},
  precision: [
${model.precision.map((row) => `    ${JSON.stringify(row)},`).join('\n')}
  ],
  samples: ${model.samples},
  threshold: ${model.threshold},
};
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = fileURLToPath(new URL('./anomaly-model-fit.ts', import.meta.url));
  writeFileSync(target, storedFitSource(400));
  process.stdout.write(`wrote ${target}\n`);
}
