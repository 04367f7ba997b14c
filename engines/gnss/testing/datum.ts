// NAD83(2011) to ITRF2008 with the NGS 14-parameter transformation, to check a US station's header position against the frame broadcast orbits give.
import type { Vec3 } from '../geodesy.ts';

/** Milliarcseconds to radians. */
const MAS = Math.PI / 180 / 3600 / 1000;

/**
 * ITRF2008 (IGS08) to NAD83(2011) as NGS's HTDP applies it (Pearson and Snay, GPS Solutions
 * 17, 2013; the form of Soler and Snay, J. Surveying Engineering 130(2), 2004): translation,
 * rotation and scale with their rates, reference epoch 1997.0. ITRF2014 and WGS 84 (G1762 on)
 * agree with ITRF2008 to about a centimetre, well below what this is used to show.
 */
function itrf2008ToNad83(x: Vec3, epoch: number): Vec3 {
  const dt = epoch - 1997.0;
  const t = [0.99343 + 0.00079 * dt, -1.90331 - 0.0006 * dt, -0.52655 - 0.00134 * dt];
  const rx = (25.91467 + 0.06667 * dt) * MAS;
  const ry = (9.42645 - 0.75744 * dt) * MAS;
  const rz = (11.59935 - 0.05133 * dt) * MAS;
  const s = (1.71504 - 0.10201 * dt) * 1e-9;
  return [
    t[0] + (1 + s) * x[0] + rz * x[1] - ry * x[2],
    t[1] - rz * x[0] + (1 + s) * x[1] + rx * x[2],
    t[2] + ry * x[0] - rx * x[1] + (1 + s) * x[2],
  ];
}

/**
 * The ITRF2008 position at `epoch` (decimal year) of a point whose NAD83(2011) coordinates are
 * `nad83` (the inverse by fixed-point iteration; the transformation is within metres of the
 * identity, so three steps reach the micrometre). The station's own motion since NAD83(2011)'s
 * epoch 2010.0 (centimetres a year) is not applied.
 */
export function nad83ToItrf2008(nad83: Vec3, epoch: number): Vec3 {
  let x: Vec3 = [...nad83];
  for (let k = 0; k < 3; k++) {
    const n = itrf2008ToNad83(x, epoch);
    x = [x[0] - (n[0] - nad83[0]), x[1] - (n[1] - nad83[1]), x[2] - (n[2] - nad83[2])];
  }
  return x;
}

/** Decimal year of a GPS time (seconds since 1980-01-06 00:00 GPS), precise enough for a frame's rates. */
export function decimalYear(gpsSeconds: number): number {
  const ms = Date.UTC(1980, 0, 6) + gpsSeconds * 1000;
  const year = new Date(ms).getUTCFullYear();
  const start = Date.UTC(year, 0, 1);
  return year + (ms - start) / (Date.UTC(year + 1, 0, 1) - start);
}

/**
 * The position a station's solutions are scored against: the header's, moved to ITRF2008 at the
 * first observation's epoch when the header is in NAD83(2011). Broadcast orbits are in WGS 84,
 * which has followed ITRF to about a centimetre since G1150 (2002), so a broadcast-ephemeris
 * solution can only be as close to a NAD83 point as the 1 to 2 m between the frames allows.
 */
export function scoringReference(header: Vec3, headerFrame: 'NAD83(2011)' | undefined, firstEpochGps: number): { position: Vec3; frame: string } {
  if (headerFrame === 'NAD83(2011)') {
    const epoch = decimalYear(firstEpochGps);
    return { position: nad83ToItrf2008(header, epoch), frame: `ITRF2008 at ${epoch.toFixed(2)} (header NAD83(2011), NGS 14-parameter transformation)` };
  }
  return { position: header, frame: 'header' };
}
