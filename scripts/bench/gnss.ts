/**
 * GNSS engine benchmark: horizontal RMS against the surveyed header positions beside RTKLIB's
 * rnx2rtkp single-point mode on the same files (ratio ours / theirs), RAIM fault detection and
 * exclusion rates with 30 m faults, spoofing detection latency and clean false alarms on the
 * simulator, and run times.
 */
import { performance } from 'node:perf_hooks';
import { EphemerisStore } from '../../engines/gnss/ephemeris/select.ts';
import { GnssEngine } from '../../engines/gnss/engine.ts';
import { prepareEpoch } from '../../engines/gnss/measurements.ts';
import { solveWithRaim } from '../../engines/gnss/raim.ts';
import { parseNav } from '../../engines/gnss/rinex/nav.ts';
import { parseObs } from '../../engines/gnss/rinex/obs.ts';
import type { Scenario } from '../../engines/gnss/simulator/scenarios.ts';
import { ConstellationSimulator } from '../../engines/gnss/simulator/simulator.ts';
import { defaultAnomalyModel } from '../../engines/gnss/simulator/training.ts';
import { solveFile } from '../../engines/gnss/solve.ts';
import { RINEX_DIR, rinexText, STATIONS } from '../../engines/gnss/testing/fixtures.ts';
import { horizontalRms } from '../../engines/gnss/testing/metrics.ts';
import { rnx2rtkpAvailable, runRnx2rtkp } from '../../engines/gnss/testing/rtklib.ts';

function accuracy(): void {
  console.log('\nAccuracy: horizontal RMS against the header position (GPS L1, 10 deg mask, Klobuchar, Saastamoinen)');
  const haveRtklib = rnx2rtkpAvailable();
  if (!haveRtklib) console.log('  rnx2rtkp not installed (Debian package rtklib): its column is skipped');
  console.log(`  ${'station'.padEnd(8)} ${'epochs'.padStart(6)} ${'ours m'.padStart(8)} ${'rnx2rtkp m'.padStart(11)} ${'ratio'.padStart(6)} ${'ours ms'.padStart(8)} ${'rnx2rtkp ms'.padStart(12)}`);
  for (const s of STATIONS) {
    const t0 = performance.now();
    const ours = solveFile(parseObs(rinexText(s.obs)), parseNav(rinexText(s.nav)));
    const oursMs = performance.now() - t0;
    const truth = parseObs(rinexText(s.obs)).header.approxPosition;
    let theirs = '-';
    let ratio = '-';
    let theirsMs = '-';
    if (haveRtklib && truth) {
      const t1 = performance.now();
      const pos = runRnx2rtkp(RINEX_DIR + s.obs, RINEX_DIR + s.nav);
      theirsMs = (performance.now() - t1).toFixed(0);
      if (pos && pos.length) {
        const rms = horizontalRms(pos, truth);
        theirs = rms.toFixed(3);
        ratio = ((ours.summary.horizontal_rms_m ?? NaN) / rms).toFixed(3);
      }
    }
    console.log(
      `  ${s.name.padEnd(8)} ${String(ours.summary.fixes).padStart(6)} ${String(ours.summary.horizontal_rms_m).padStart(8)} ${theirs.padStart(11)} ${ratio.padStart(6)} ${oursMs.toFixed(0).padStart(8)} ${theirsMs.padStart(12)}`,
    );
  }
}

function faultDetection(): void {
  console.log('\nRAIM: a 30 m fault (either sign) on each used satellite in turn, every epoch of every station');
  let clean = 0;
  let falseAlarms = 0;
  let detectTrials = 0;
  let detected = 0;
  let excludeTrials = 0;
  let excludedRight = 0;
  let solves = 0;
  const t0 = performance.now();
  for (const s of STATIONS) {
    const obs = parseObs(rinexText(s.obs));
    const nav = parseNav(rinexText(s.nav));
    const store = new EphemerisStore(nav.ephemerides);
    for (const ep of obs.epochs) {
      const meas = prepareEpoch(ep, store).measurements;
      const base = solveWithRaim(ep.time, meas, { iono: nav.iono });
      solves++;
      clean++;
      if (base.faultDetected) falseAlarms++;
      if (!base.solution.fix) continue;
      const used = base.solution.residuals.map((r) => r.sat);
      for (const sat of used) {
        for (const bias of [30, -30]) {
          const r = solveWithRaim(ep.time, meas.map((m) => (m.sat === sat ? { ...m, pseudorange: m.pseudorange + bias } : m)), { iono: nav.iono });
          solves++;
          if (used.length >= 6) {
            detectTrials++;
            if (r.faultDetected) detected++;
          }
          if (used.length >= 7) {
            excludeTrials++;
            if (r.excluded.length === 1 && r.excluded[0] === sat) excludedRight++;
          }
        }
      }
    }
  }
  const ms = performance.now() - t0;
  console.log(`  detection (>= 6 sats):        ${((100 * detected) / detectTrials).toFixed(2)} % of ${detectTrials} (bar 99 %)`);
  console.log(`  right exclusion (>= 7 sats):  ${((100 * excludedRight) / excludeTrials).toFixed(2)} % of ${excludeTrials} (bar 95 %)`);
  console.log(`  false alarms on clean data:   ${((100 * falseAlarms) / clean).toFixed(3)} % of ${clean} epochs (bar 0.1 %)`);
  console.log(`  ${(ms / solves).toFixed(2)} ms per epoch solved with RAIM/FDE`);
}

function spoofing(): void {
  console.log('\nSpoofing on the simulator (1 Hz): latency of the first warning after onset, and clean runs');
  const model = defaultAnomalyModel();
  const site = { lat: 37.4165, lon: -122.2042, height: 64 };
  const cases: [string, Scenario][] = [
    ['position push, overpowered', { kind: 'spoofer_position', start: 60, offsetEnu: [150, 80, 0], driftMps: [1, 0, 0], power: 'overpowered' }],
    ['position push, matched', { kind: 'spoofer_position', start: 60, offsetEnu: [40, 30, 0], power: 'matched' }],
    ['time push, overpowered', { kind: 'spoofer_time', start: 60, offsetNs: 300, rateNsPerS: 2, power: 'overpowered' }],
    ['time push, matched', { kind: 'spoofer_time', start: 60, offsetNs: 100, power: 'matched' }],
    ['jamming J/S 30 dB', { kind: 'jamming', start: 60, jsDb: 30 }],
  ];
  for (const [name, scenario] of cases) {
    const latencies: number[] = [];
    for (let seed = 1; seed <= 10; seed++) {
      const sim = new ConstellationSimulator({ site, seed, startGps: 1.3e9 + seed * 3571, scenarios: [scenario] });
      const engine = new GnssEngine({ nav: sim.nav, agcBaselinePercent: 50, anomalyModel: model });
      for (let k = 0; k < 70; k++) {
        const e = sim.step();
        const a = engine.process(e.obs, { agcPercent: e.agcPercent });
        if (e.elapsed >= 60 && a.spoofing.status !== 'clear') {
          latencies.push(e.elapsed - 60);
          break;
        }
      }
    }
    const worst = latencies.length === 10 ? `${Math.max(...latencies)} s` : 'missed';
    console.log(`  ${name.padEnd(28)} detected ${latencies.length}/10 runs, worst latency ${worst} (bar 2 s)`);
  }
  let epochs = 0;
  let warned = 0;
  const t0 = performance.now();
  for (let seed = 100; seed < 106; seed++) {
    const sim = new ConstellationSimulator({ site, seed, startGps: 1.3e9 + seed * 7919 });
    const engine = new GnssEngine({ nav: sim.nav, agcBaselinePercent: 50, anomalyModel: model });
    for (let k = 0; k < 600; k++) {
      const e = sim.step();
      const a = engine.process(e.obs, { agcPercent: e.agcPercent });
      epochs++;
      if (a.spoofing.status !== 'clear') warned++;
    }
  }
  const ms = performance.now() - t0;
  console.log(`  clean runs: ${warned} warnings in ${epochs} epochs (bar 0); ${(ms / epochs).toFixed(2)} ms per simulated and assessed epoch`);
}

export async function run(): Promise<void> {
  accuracy();
  faultDetection();
  spoofing();
}
