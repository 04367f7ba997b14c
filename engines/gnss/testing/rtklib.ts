// Runs RTKLIB's rnx2rtkp in single-point mode (broadcast orbits, Klobuchar or dual-frequency ionosphere-free, Saastamoinen) as the accuracy baseline.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Vec3 } from '../geodesy.ts';

export function rnx2rtkpAvailable(): boolean {
  const r = spawnSync('rnx2rtkp', ['-?'], { encoding: 'utf8' });
  return !r.error;
}

/** rnx2rtkp's navsys bits per constellation. */
const NAVSYS: Record<string, number> = { GPS: 1, SBAS: 2, GLONASS: 4, Galileo: 8, QZSS: 16, BeiDou: 32 };

/** The options that make rnx2rtkp comparable with the engine: 10 degree mask, Saastamoinen, the same constellations (ionosphere per run). */
const CONFIG = [
  'pos1-posmode       =single',
  'pos1-elmask        =10',
  'pos1-tropopt       =saas',
  'pos1-sateph        =brdc',
  'out-solformat      =xyz',
].join('\n');

/**
 * ECEF positions rnx2rtkp computes for each epoch, or undefined when it is not installed.
 * `constellations`: the systems it may use (default GPS), the ones the engine's solution used.
 * `ionosphere`: `brdc` (Klobuchar on the L1 code, RTKLIB's single-mode default) or `dual-freq`
 * (its ionosphere-free code combination, pntpos IONOOPT_IFLC).
 */
export function runRnx2rtkp(obsPath: string, navPath: string, constellations: readonly string[] = ['GPS'], ionosphere: 'brdc' | 'dual-freq' = 'brdc'): Vec3[] | undefined {
  if (!rnx2rtkpAvailable()) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'rnx2rtkp-'));
  try {
    const conf = join(dir, 'spp.conf');
    const out = join(dir, 'out.pos');
    const navsys = constellations.reduce((bits, c) => bits | (NAVSYS[c] ?? 0), 0) || 1;
    writeFileSync(conf, `${CONFIG}\npos1-navsys        =${navsys}\npos1-ionoopt       =${ionosphere}\n`);
    const r = spawnSync('rnx2rtkp', ['-k', conf, '-o', out, obsPath, navPath], { encoding: 'utf8', timeout: 60000 });
    if (r.status !== 0) throw new Error(`rnx2rtkp failed: ${r.stderr}`);
    return readFileSync(out, 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('%'))
      .map((l) => {
        const p = l.trim().split(/\s+/);
        return [Number(p[2]), Number(p[3]), Number(p[4])] as Vec3;
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
