// `lattice gnss`: solve RINEX files and replay receiver logs (UBX, NMEA, gpsd) through the GNSS engine.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parseNav, parseObs, replayLog, solveFile, streamGpsd, summariseReplay, type ReceiverEpoch } from '../../engines/gnss/index.ts';

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

  gnss
    .command('replay')
    .description('run a recorded receiver log (UBX or NMEA) or a live gpsd stream through the engine')
    .argument('[file]', 'UBX binary or NMEA 0183 log')
    .option('--gpsd <host:port>', 'read from a gpsd server instead of a file')
    .option('--epochs <n>', 'with --gpsd, stop after this many epochs', '10')
    .option('--json', 'print one JSON object {format, epochs, summary, errors}')
    .action(async (file: string | undefined, opts: { gpsd?: string; epochs: string; json?: boolean }) => {
      let epochs: ReceiverEpoch[];
      let format: string;
      let errors: string[];
      if (opts.gpsd) {
        const m = /^([^:]+):(\d+)$/.exec(opts.gpsd);
        if (!m) throw new Error(`--gpsd must be host:port, got "${opts.gpsd}"`);
        const max = Number(opts.epochs);
        if (!Number.isInteger(max) || max < 1) throw new Error(`--epochs must be a positive integer, got "${opts.epochs}"`);
        epochs = [];
        for await (const e of streamGpsd({ host: m[1], port: Number(m[2]), maxEpochs: max })) epochs.push(e);
        format = 'gpsd';
        errors = [];
      } else {
        if (!file) throw new Error('give a log file or --gpsd host:port');
        let data: Buffer;
        try {
          data = readFileSync(file);
        } catch (err) {
          throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
        }
        const r = replayLog(data);
        epochs = r.epochs;
        format = r.format;
        errors = r.errors.map((e) => `${e.code}: ${e.message}`);
      }
      const summary = summariseReplay(epochs);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ format, epochs: summary.epochs, summary: summary.summary, errors })}\n`);
        return;
      }
      for (const e of summary.epochs) {
        const where = e.fix ? `${e.latitude?.toFixed(8)} ${e.longitude?.toFixed(8)} ${e.altitude?.toFixed(2) ?? '-'} m` : 'no fix';
        const signal = e.signal_power ? `  C/N0 ${e.signal_power.mean_cn0_dbhz.toFixed(1)} dB-Hz ${e.signal_power.status}` : '';
        process.stdout.write(`${e.time ?? '(no time)'}  ${where}  sats ${e.satellites_used ?? '-'}/${e.satellites_visible}${signal}\n`);
      }
      const s = summary.summary;
      process.stdout.write(`${format}: ${s.epochs} epochs, ${s.fixes} with a fix, ${errors.length} rejected frames/sentences\n`);
      for (const e of errors) process.stdout.write(`  ${e}\n`);
    });
}
