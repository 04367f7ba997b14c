import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { register } from './gnss.ts';

const rinex = fileURLToPath(new URL('../../fixtures/gnss/rinex/', import.meta.url));

/** Runs `lattice gnss ...` in-process on a program holding only this module's commands; returns what it printed. */
async function run(args: string[]): Promise<string> {
  const program = new Command('lattice').exitOverride();
  let out = '';
  register(program, (text) => {
    out += text;
  });
  await program.parseAsync(['node', 'lattice', 'gnss', ...args]);
  return out;
}

test('gnss solve --json prints the contract shape for every epoch', async () => {
  const out = JSON.parse(await run(['solve', '--obs', `${rinex}07590920.05o`, '--nav', `${rinex}07590920.05n`, '--json'])) as {
    epochs: Record<string, unknown>[];
    summary: Record<string, unknown>;
  };
  assert.equal(out.epochs.length, 120);
  const e = out.epochs[0];
  for (const k of ['time', 'latitude', 'longitude', 'altitude', 'clock_bias_m', 'pdop', 'hdop', 'vdop', 'satellites_used', 'residual_rms_m', 'raim']) {
    assert.ok(k in e, k);
  }
  assert.deepEqual(Object.keys(e.raim as object).sort(), ['excluded', 'fault_detected', 'test_statistic', 'threshold']);
  assert.ok(Math.abs((e.latitude as number) - 35.1609) < 0.001);
  assert.ok((out.summary.horizontal_rms_m as number) < 0.7);
});

test('gnss solve without --json prints one line per epoch and a summary', async () => {
  const out = await run(['solve', '--obs', `${rinex}30400920.05o`, '--nav', `${rinex}30400920.05n`]);
  const lines = out.trim().split('\n');
  assert.equal(lines.length, 121);
  assert.match(lines[120], /3040: 120\/120 epochs fixed, horizontal RMS 0\.\d+ m/);
});

test('gnss solve with a navigation file as --obs fails with a clear message', async () => {
  await assert.rejects(run(['solve', '--obs', `${rinex}07590920.05n`, '--nav', `${rinex}07590920.05n`]), /not a RINEX observation file/);
  await assert.rejects(run(['solve', '--obs', `${rinex}missing.05o`, '--nav', `${rinex}07590920.05n`]), /cannot read .*missing\.05o: ENOENT/);
});

const gpsd = fileURLToPath(new URL('../../fixtures/gnss/gpsd/', import.meta.url));

test('gnss replay --json runs a UBX log through the engine and lists the rejected final frame', async () => {
  const out = JSON.parse(await run(['replay', `${gpsd}ublox-neo-m8t.log`, '--json'])) as {
    format: string;
    epochs: { fix: boolean; latitude?: number }[];
    summary: { fixes: number };
    errors: string[];
  };
  assert.equal(out.format, 'ubx');
  assert.equal(out.summary.fixes, 39);
  assert.ok(Math.abs(out.epochs[0].latitude! - 44.0688096) < 1e-6);
  assert.equal(out.errors.length, 1);
  assert.match(out.errors[0], /UBX_CORRUPT: .*cut short/);
});

test('gnss replay prints NMEA epochs with their signal power check', async () => {
  const out = await run(['replay', `${gpsd}ublox-zed-f9p-nmea.log`]);
  assert.match(out, /2019-04-12T00:39:56\.000Z +-45\.87756717 170\.50011133/);
  assert.match(out, /nmea: 29 epochs, 29 with a fix, 0 rejected/);
});

test('gnss simulate --json runs the simulator through the engine and reports a scenario event', async () => {
  const out = JSON.parse(
    await run(['simulate', '--seconds', '40', '--seed', '3', '--scenario', '{"kind":"spoofer_position","start":30,"offsetEnu":[80,0,0],"power":"matched"}', '--json']),
  ) as { epochs: { position: { latitude: number } | null; spoofing: { status: string } }[]; summary: { fixes: number; events: { start_s: number; threat_type: string }[] } };
  assert.equal(out.summary.fixes, 40);
  assert.ok(out.epochs.slice(0, 30).every((e) => e.spoofing.status === 'clear'));
  assert.equal(out.summary.events.length, 1);
  assert.equal(out.summary.events[0].threat_type, 'spoofing_position');
  assert.ok(out.summary.events[0].start_s >= 30 && out.summary.events[0].start_s <= 32);
});

test('gnss simulate rejects a bad site or scenario with a clear message', async () => {
  await assert.rejects(run(['simulate', '--site', '95,0,0']), /--site must be lat,lon,height/);
  await assert.rejects(run(['simulate', '--scenario', '{"kind":"alien","start":1}']), /--scenario: scenario kind must be one of/);
  await assert.rejects(run(['simulate', '--scenario', '{"kind":"jamming","start":1}']), /--scenario: jamming needs jsDb/);
});

test('gnss replay says why raw measurements without ephemeris give no engine fix', async () => {
  const out = JSON.parse(await run(['replay', `${gpsd}ublox-neo-m8t.log`, '--json'])) as {
    engine: { fix: boolean; reason?: string }[];
    summary: { engine_epochs: number; engine_fixes: number };
  };
  assert.equal(out.summary.engine_epochs, 39);
  assert.equal(out.summary.engine_fixes, 0);
  assert.match(out.engine[0].reason ?? '', /too few satellites: 0 usable, 4 needed \(no valid ephemeris: \d+/);
});

test('gnss replay --gpsd reads epochs from a gpsd server', async () => {
  const chk = readFileSync(`${gpsd}ublox-zed-f9p-sfrbx.log.chk`, 'latin1');
  const server = createServer((sock) => sock.once('data', () => sock.end(chk)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  try {
    const out = JSON.parse(await run(['replay', '--gpsd', `127.0.0.1:${port}`, '--epochs', '5', '--json'])) as { format: string; epochs: { fix: boolean }[] };
    assert.equal(out.format, 'gpsd');
    assert.equal(out.epochs.length, 5);
    assert.ok(out.epochs.every((e) => e.fix));
  } finally {
    server.close();
  }
  await assert.rejects(run(['replay', '--gpsd', 'nocolon']), /--gpsd must be host:port/);
});

test('gnss solve runs the Kalman filter by default and says which model it used; --solver spp, --dynamics static and --ionosphere choose, bad values are refused', async () => {
  const def = JSON.parse(await run(['solve', '--obs', `${rinex}07590920.05o`, '--nav', `${rinex}07590920.05n`, '--json'])) as { summary: { positioning: unknown; fixes: number } };
  assert.deepEqual(def.summary.positioning, { mode: 'kalman', dynamics: 'moving', smoothing: true, combined: false, ionosphere: 'broadcast' });
  assert.equal(def.summary.fixes, 120);
  const text = await run(['solve', '--obs', `${rinex}07590920.05o`, '--nav', `${rinex}07590920.05n`, '--dynamics', 'static']);
  assert.match(text.trim().split('\n').at(-1) ?? '', /0759: 120\/120 epochs fixed, .*; Kalman filter, static receiver$/);
  const spp = JSON.parse(await run(['solve', '--obs', `${rinex}07590920.05o`, '--nav', `${rinex}07590920.05n`, '--solver', 'spp', '--json'])) as { summary: { positioning: unknown; horizontal_rms_m: number } };
  assert.deepEqual(spp.summary.positioning, { mode: 'spp', ionosphere: 'broadcast' });
  const iflc = await run(['solve', '--obs', `${rinex}07590920.05o`, '--nav', `${rinex}07590920.05n`, '--ionosphere', 'dual-frequency']);
  assert.match(iflc.trim().split('\n').at(-1) ?? '', /0759: 120\/120 epochs fixed, .*; Kalman filter, moving receiver, ionosphere-free code where the data has it$/);
  const combined = JSON.parse(await run(['solve', '--obs', `${rinex}07590920.05o`, '--nav', `${rinex}07590920.05n`, '--dynamics', 'static', '--combined', '--json'])) as { summary: { horizontal_rms_m: number } };
  assert.ok(combined.summary.horizontal_rms_m < spp.summary.horizontal_rms_m);
  await assert.rejects(run(['solve', '--obs', `${rinex}07590920.05o`, '--nav', `${rinex}07590920.05n`, '--dynamics', 'parked']), /--dynamics must be static or moving, got "parked"/);
  await assert.rejects(run(['solve', '--obs', `${rinex}07590920.05o`, '--nav', `${rinex}07590920.05n`, '--solver', 'rtk']), /--solver must be kalman or spp, got "rtk"/);
  await assert.rejects(run(['solve', '--obs', `${rinex}07590920.05o`, '--nav', `${rinex}07590920.05n`, '--ionosphere', 'ionex']), /--ionosphere must be broadcast or dual-frequency, got "ionex"/);
});
