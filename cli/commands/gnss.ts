// `lattice gnss`: solve RINEX files and replay receiver logs (UBX, NMEA, gpsd) through the GNSS engine.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parseNav, parseObs, solveFile } from '../../engines/gnss/index.ts';

function readText(path: string): string {
  try {
    return readFileSync(path, 'latin1');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

export function register(program: Command): void {
  const gnss = program.command('gnss').description('GNSS positioning, integrity and timing engine');

  gnss
    .command('solve')
    .description('single-point positions with RAIM for every epoch of a RINEX observation file')
    .requiredOption('--obs <file>', 'RINEX 2.x/3.x observation file')
    .requiredOption('--nav <file>', 'RINEX navigation file (broadcast ephemeris)')
    .option('--elevation-mask <deg>', 'elevation mask in degrees', '10')
    .option('--json', 'print one JSON object {epochs, summary}')
    .action((opts: { obs: string; nav: string; elevationMask: string; json?: boolean }) => {
      const mask = Number(opts.elevationMask);
      if (!Number.isFinite(mask) || mask < 0 || mask >= 90) throw new Error(`--elevation-mask must be a number of degrees in [0, 90), got "${opts.elevationMask}"`);
      const obs = parseObs(readText(opts.obs));
      const nav = parseNav(readText(opts.nav));
      const result = solveFile(obs, nav, { elevationMaskDeg: mask });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(result)}\n`);
        return;
      }
      for (const e of result.epochs) {
        if (!e.fix) {
          process.stdout.write(`${e.time}  no fix: ${e.reason}\n`);
          continue;
        }
        const raim = e.raim.fault_detected ? `  RAIM fault, excluded ${e.raim.excluded.join(',') || 'none'}` : '';
        process.stdout.write(
          `${e.time}  ${e.latitude.toFixed(8)} ${e.longitude.toFixed(8)} ${e.altitude.toFixed(2)} m  sats ${e.satellites_used}  PDOP ${e.pdop.toFixed(2)}  rms ${e.residual_rms_m.toFixed(2)} m${raim}\n`,
        );
      }
      const s = result.summary;
      process.stdout.write(
        `${s.marker}: ${s.fixes}/${s.epochs} epochs fixed` +
          (s.horizontal_rms_m !== undefined ? `, horizontal RMS ${s.horizontal_rms_m} m, vertical RMS ${s.vertical_rms_m} m against the header position` : '') +
          `, ${s.faults_detected} RAIM faults\n`,
      );
    });
}
