// `lattice gnss`: solve RINEX files and replay receiver logs (UBX, NMEA, gpsd) through the GNSS engine.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { ReceiverEpoch, Scenario } from '../../engines/gnss/index.ts';

/** The engine and its report helpers, loaded when a gnss command runs. */
async function loadEngine() {
  const [e, report] = await Promise.all([import('../../engines/gnss/index.ts'), import('../../engines/gnss/report.ts')]);
  return { ...e, ...report };
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'latin1');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** Broadcast ephemerides are used up to this far from their reference time (GPS: 2 h, with margin). */
const EPHEMERIS_REACH_S = 4 * 3600;

/**
 * Why a navigation file cannot serve these observation times (its ephemerides are all from
 * another day), or null when their times overlap.
 */
export function navMismatch(obsTimes: readonly number[], toes: readonly number[], iso: (gps: number) => string): string | null {
  if (!obsTimes.length) return null;
  if (!toes.length) return 'holds no broadcast ephemeris: no satellite position can be computed';
  const [o0, o1] = [Math.min(...obsTimes), Math.max(...obsTimes)];
  const [n0, n1] = [Math.min(...toes), Math.max(...toes)];
  if (n1 + EPHEMERIS_REACH_S >= o0 && n0 - EPHEMERIS_REACH_S <= o1) return null;
  const day = (t: number) => iso(t).slice(0, 16).replace('T', ' ');
  return (
    `covers ${day(n0)} to ${day(n1)} UTC but the observations are from ${day(o0)} to ${day(o1)}: ` +
    'the dates do not overlap, so no satellite has an ephemeris; use the navigation file of the same day'
  );
}

/** Registers the `gnss` commands; `write` receives everything they print (standard output by default). */
export function register(program: Command, write: (text: string) => void = (text) => void process.stdout.write(text)): void {
  const gnss = program.command('gnss').description('GNSS positioning, integrity and timing engine');

  gnss
    .command('solve')
    .description('positions with RAIM for every epoch of a RINEX observation file: carrier-smoothed Kalman filter (default) or single-point')
    .requiredOption('--obs <file>', 'RINEX 2.x/3.x/4.x observation file')
    .requiredOption('--nav <file>', 'RINEX navigation file (broadcast ephemeris; 2.x, mixed 3.x or 4.x)')
    .option('--elevation-mask <deg>', 'elevation mask in degrees', '10')
    .option('--solver <kalman|spp>', 'kalman: smoothed pseudoranges through the position-velocity-clock filter; spp: each epoch on its own', 'kalman')
    .option('--dynamics <static|moving>', 'motion model of the Kalman filter: static for a fixed antenna, moving otherwise', 'moving')
    .option('--combined', 'with the Kalman filter: also run it backwards over the file and combine both per epoch (post-processing)')
    .option('--ionosphere <broadcast|dual-frequency>', 'broadcast: L1 code with the Klobuchar model; dual-frequency: the ionosphere-free code combination where the data has it', 'broadcast')
    .option('--json', 'print one JSON object {epochs, summary}')
    .action(async (opts: { obs: string; nav: string; elevationMask: string; solver: string; dynamics: string; combined?: boolean; ionosphere: string; json?: boolean }) => {
      const { parseObs, parseNav, solveFile, time } = await loadEngine();
      const mask = Number(opts.elevationMask);
      if (!Number.isFinite(mask) || mask < 0 || mask >= 90) throw new Error(`--elevation-mask must be a number of degrees in [0, 90), got "${opts.elevationMask}"`);
      if (opts.solver !== 'kalman' && opts.solver !== 'spp') throw new Error(`--solver must be kalman or spp, got "${opts.solver}"`);
      if (opts.dynamics !== 'static' && opts.dynamics !== 'moving') throw new Error(`--dynamics must be static or moving, got "${opts.dynamics}"`);
      if (opts.ionosphere !== 'broadcast' && opts.ionosphere !== 'dual-frequency') throw new Error(`--ionosphere must be broadcast or dual-frequency, got "${opts.ionosphere}"`);
      const obs = parseObs(readText(opts.obs));
      const nav = parseNav(readText(opts.nav));
      const mismatch = navMismatch(
        obs.epochs.map((e) => e.time),
        nav.ephemerides.map((e) => e.toe),
        time.gpsToIso,
      );
      if (mismatch) throw new Error(`${opts.nav} ${mismatch}`);
      const result = solveFile(obs, nav, { elevationMaskDeg: mask }, {}, { mode: opts.solver, dynamics: opts.dynamics, combined: opts.combined === true, ionosphere: opts.ionosphere });
      if (opts.json) {
        write(`${JSON.stringify(result)}\n`);
        return;
      }
      for (const e of result.epochs) {
        if (!e.fix) {
          write(`${e.time}  no fix: ${e.reason}\n`);
          continue;
        }
        const raim = e.raim.fault_detected ? `  RAIM fault, excluded ${e.raim.excluded.join(',') || 'none'}` : '';
        write(
          `${e.time}  ${e.latitude.toFixed(8)} ${e.longitude.toFixed(8)} ${e.altitude.toFixed(2)} m  sats ${e.satellites_used}  PDOP ${e.pdop === null ? '-' : e.pdop.toFixed(2)}  rms ${e.residual_rms_m.toFixed(2)} m${raim}\n`,
        );
      }
      const s = result.summary;
      const solver =
        (s.positioning.mode === 'kalman' ? `Kalman filter${s.positioning.combined ? ' (forward-backward combined)' : ''}, ${s.positioning.dynamics} receiver` : 'single-point') +
        (s.positioning.ionosphere === 'dual-frequency' ? ', ionosphere-free code where the data has it' : '');
      write(
        `${s.marker}: ${s.fixes}/${s.epochs} epochs fixed` +
          (s.horizontal_rms_m !== undefined ? `, horizontal RMS ${s.horizontal_rms_m} m, vertical RMS ${s.vertical_rms_m} m against the header position` : '') +
          `, ${s.faults_detected} RAIM faults; ${solver}\n`,
      );
    });

  gnss
    .command('replay')
    .description('run a recorded receiver log (UBX or NMEA) or a live gpsd stream through the engine')
    .argument('[file]', 'UBX binary or NMEA 0183 log')
    .option('--gpsd <host:port>', 'read from a gpsd server instead of a file')
    .option('--epochs <n>', 'with --gpsd, stop after this many epochs', '10')
    .option('--nav <file>', 'RINEX navigation file for solving raw measurements (RXM-RAWX) with the engine')
    .option('--json', 'print one JSON object {format, epochs, summary, errors}')
    .action(async (file: string | undefined, opts: { gpsd?: string; epochs: string; nav?: string; json?: boolean }) => {
      const { streamGpsd, replayLog, parseNav, solveReplay, positionReport, time, summariseReplay } = await loadEngine();
      let epochs: ReceiverEpoch[];
      let format: string;
      let errors: string[];
      let engineFixes: { time: string; fix: boolean; latitude?: number; longitude?: number; altitude?: number; satellites_used?: number; reason?: string; spoofing: string }[] = [];
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
        if (r.format === 'empty') {
          const why = r.errors.length ? `${r.errors.length} unreadable frames or sentences, the first: ${r.errors[0]!.code}: ${r.errors[0]!.message}` : 'no UBX frame and no NMEA sentence in it';
          throw new Error(`${file} is not a receiver log (${data.length} bytes, ${why}); give a UBX or NMEA 0183 log`);
        }
        epochs = r.epochs;
        format = r.format;
        errors = r.errors.map((e) => `${e.code}: ${e.message}`);
        // Raw measurements are solved by the engine itself with the log's subframes and/or --nav.
        const nav = opts.nav ? parseNav(readText(opts.nav)) : undefined;
        engineFixes = solveReplay(r, { nav }).map(({ epoch, assessment: a }) => {
          const p = positionReport(a);
          return {
            time: epoch.time ?? time.gpsToIso(a.time),
            fix: p !== null,
            latitude: p?.latitude,
            longitude: p?.longitude,
            altitude: p?.altitude,
            satellites_used: a.fix?.residuals.length,
            reason: a.noFixReason,
            spoofing: a.spoofing.status,
          };
        });
      }
      const summary = summariseReplay(epochs);
      if (opts.json) {
        write(`${JSON.stringify({ format, epochs: summary.epochs, engine: engineFixes, summary: { ...summary.summary, engine_epochs: engineFixes.length, engine_fixes: engineFixes.filter((e) => e.fix).length }, errors })}\n`);
        return;
      }
      for (const e of summary.epochs) {
        const where = e.fix ? `${e.latitude?.toFixed(8)} ${e.longitude?.toFixed(8)} ${e.altitude?.toFixed(2) ?? '-'} m` : 'no fix';
        const signal = e.signal_power ? `  C/N0 ${e.signal_power.mean_cn0_dbhz.toFixed(1)} dB-Hz ${e.signal_power.status}` : '';
        write(`${e.time ?? '(no time)'}  ${where}  sats ${e.satellites_used ?? '-'}/${e.satellites_visible}${signal}\n`);
      }
      const s = summary.summary;
      write(`${format}: ${s.epochs} epochs, ${s.fixes} with a fix, ${errors.length} rejected frames/sentences\n`);
      if (engineFixes.length) {
        const solved = engineFixes.filter((e) => e.fix).length;
        const why = engineFixes.find((e) => !e.fix)?.reason;
        write(`engine on raw measurements: ${solved}/${engineFixes.length} epochs solved${why ? ` (no fix: ${why})` : ''}\n`);
      }
      for (const e of errors) write(`  ${e}\n`);
    });

  gnss
    .command('simulate')
    .description('run the built-in constellation simulator through the engine, optionally with a scenario')
    .option('--site <lat,lon,height>', 'site in degrees and metres', '37.4165,-122.2042,64')
    .option('--seconds <n>', 'epochs to simulate at 1 Hz', '60')
    .option('--seed <n>', 'random seed', '1')
    .option('--oscillator <class>', 'TCXO, OCXO or rubidium', 'OCXO')
    .option('--scenario <json>', 'a scenario object, e.g. {"kind":"spoofer_position","start":30,"offsetEnu":[100,0,0],"power":"matched"}')
    .option('--json', 'print one JSON object {epochs, summary}')
    .action(async (opts: { site: string; seconds: string; seed: string; oscillator: string; scenario?: string; json?: boolean }) => {
      const { parseScenario, ConstellationSimulator, GnssEngine, defaultAnomalyModel, positionReport, integrityReport, timingReport } = await loadEngine();
      const site = opts.site.split(',').map(Number);
      if (site.length !== 3 || site.some((v) => !Number.isFinite(v)) || Math.abs(site[0]) > 90 || Math.abs(site[1]) > 180) {
        throw new Error(`--site must be lat,lon,height in degrees and metres, got "${opts.site}"`);
      }
      const seconds = Number(opts.seconds);
      if (!Number.isInteger(seconds) || seconds < 1 || seconds > 86400) throw new Error(`--seconds must be an integer from 1 to 86400, got "${opts.seconds}"`);
      if (!['TCXO', 'OCXO', 'rubidium'].includes(opts.oscillator)) throw new Error(`--oscillator must be TCXO, OCXO or rubidium, got "${opts.oscillator}"`);
      const oscillator = opts.oscillator as 'TCXO' | 'OCXO' | 'rubidium';
      let scenarios: Scenario[] = [];
      if (opts.scenario) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(opts.scenario);
        } catch {
          throw new Error('--scenario must be JSON');
        }
        scenarios = (Array.isArray(parsed) ? parsed : [parsed]).map((v) => {
          try {
            return parseScenario(v);
          } catch (err) {
            throw new Error(`--scenario: ${(err as Error).message}`);
          }
        });
      }
      const sim = new ConstellationSimulator({ site: { lat: site[0], lon: site[1], height: site[2] }, seed: Number(opts.seed), oscillator, scenarios });
      const engine = new GnssEngine({ nav: sim.nav, oscillator, agcBaselinePercent: 50, anomalyModel: defaultAnomalyModel() });
      const epochs = [];
      for (let k = 0; k < seconds; k++) {
        const e = sim.step();
        const a = engine.process(e.obs, { agcPercent: e.agcPercent });
        epochs.push({
          elapsed_s: e.elapsed,
          scenarios: e.active,
          position: positionReport(a),
          integrity: integrityReport(a),
          spoofing: { ...a.spoofing, warnings: a.checks.filter((c) => c.result === 'warning').map((c) => c.type) },
          timing: timingReport(engine, e.obs.time, { includeBounds: true }),
          raim: { fault_detected: a.raim.faultDetected, excluded: a.raim.excluded },
        });
      }
      const summary = {
        epochs: epochs.length,
        fixes: epochs.filter((e) => e.position).length,
        warnings: epochs.filter((e) => e.spoofing.status !== 'clear').length,
        events: engine.history.events.map((e) => ({ start_s: e.start - sim.startGps, status: e.status, threat_type: e.threatType, checks: e.checks })),
      };
      if (opts.json) {
        write(`${JSON.stringify({ epochs, summary })}\n`);
        return;
      }
      for (const e of epochs) {
        const p = e.position ? `${e.position.latitude.toFixed(7)} ${e.position.longitude.toFixed(7)} \u00b1${e.position.horizontal_accuracy_m.toFixed(1)} m` : 'no fix';
        const w = e.spoofing.status === 'clear' ? '' : `  ${e.spoofing.status.toUpperCase()} ${e.spoofing.threatType} (${e.spoofing.warnings.join(',')})`;
        write(`+${String(e.elapsed_s).padStart(4)} s  ${p}  sats ${e.integrity.satellites_used}  integrity ${e.integrity.score}  ${e.timing.source} \u00b1${e.timing.accuracy_ns} ns${w}\n`);
      }
      write(`${summary.fixes}/${summary.epochs} fixes, ${summary.warnings} epochs with warnings, ${summary.events.length} events\n`);
    });
}
