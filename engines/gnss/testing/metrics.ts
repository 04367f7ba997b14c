// Horizontal error statistics of positions against a reference point.
import { ecefToEnu, ecefToGeodetic, sub, type Vec3 } from '../geodesy.ts';

/** Root mean square of the horizontal (east-north) distance of each position from `truth`, metres. */
export function horizontalRms(positions: Vec3[], truth: Vec3): number {
  const g = ecefToGeodetic(truth);
  let s = 0;
  for (const p of positions) {
    const e = ecefToEnu(sub(p, truth), g);
    s += e[0] * e[0] + e[1] * e[1];
  }
  return Math.sqrt(s / positions.length);
}
