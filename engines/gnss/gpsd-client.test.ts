import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { parseGpsdJson, streamGpsd } from './gpsd-client.ts';
import { replayLog } from './replay.ts';
import { GPSD_DIR, gpsdLog } from './testing/fixtures.ts';

function gpsfakeInstalled(): boolean {
  return !spawnSync('gpsfake', ['-h'], { encoding: 'utf8' }).error;
}

/** Runs gpsfake in pipe mode on a log and returns gpsd's JSON output; kills only the process it started. */
function gpsfake(log: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('gpsfake', ['-p', '-1', '-q', log], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('latin1')));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) child.kill('SIGKILL');
      reject(new Error(`gpsfake on ${log} did not finish in 60 s`));
    }, 60000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

test('the recorded gpsd output (.chk) decodes to the positions the engine reads from the raw log', () => {
  const chk = parseGpsdJson(readFileSync(`${GPSD_DIR}ublox-zed-f9p-sfrbx.log.chk`, 'latin1'));
  assert.equal(chk.errors.length, 0);
  const ours = replayLog(gpsdLog('ublox-zed-f9p-sfrbx.log')).epochs;
  const fixes = chk.epochs.filter((e) => e.mode === 3);
  assert.ok(fixes.length >= 15);
  for (const f of fixes) {
    const mine = ours.find((e) => e.timeOfDay === f.timeOfDay);
    assert.ok(mine, f.time);
    assert.ok(Math.abs(mine.lat! - f.lat!) < 2e-7 && Math.abs(mine.lon! - f.lon!) < 2e-7, f.time);
  }
  const sky = chk.epochs.filter((e) => e.satellites.length);
  assert.ok(sky.some((e) => e.satellitesUsed === 18));
});

for (const log of ['bu353s4.log', 'ublox-zed-f9p-sfrbx.log']) {
  test(`gpsfake replay of ${log}: gpsd's live JSON agrees with the engine's own decoding`, async (t) => {
    if (!gpsfakeInstalled()) {
      t.skip('gpsfake not installed');
      return;
    }
    const out = await gpsfake(`${GPSD_DIR}${log}`);
    const live = parseGpsdJson(out);
    const ours = replayLog(gpsdLog(log)).epochs.filter((e) => e.lat !== undefined);
    const fixes = live.epochs.filter((e) => e.mode > 1 && e.lat !== undefined);
    assert.ok(fixes.length >= 5, `${fixes.length} fixes from gpsd`);
    for (const f of fixes) {
      // 5e-7 degrees (5 cm): gpsd may report a cycle's position from its ECEF message, rounded to 1 cm.
      const match = ours.find((e) => Math.abs(e.lat! - f.lat!) < 5e-7 && Math.abs(e.lon! - f.lon!) < 5e-7);
      assert.ok(match, `gpsd fix ${f.time} ${f.lat},${f.lon} not among the engine's`);
    }
  });
}

test('streamGpsd watches a gpsd socket and yields epochs until the server closes', async () => {
  const lines = readFileSync(`${GPSD_DIR}ublox-zed-f9p-sfrbx.log.chk`, 'latin1');
  let watched = '';
  const server = createServer((sock) => {
    sock.once('data', (d) => {
      watched = d.toString();
      sock.end(`{"class":"VERSION","release":"3.22"}\n${lines}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  try {
    const epochs = [];
    for await (const e of streamGpsd({ host: '127.0.0.1', port })) epochs.push(e);
    assert.match(watched, /^\?WATCH=\{"enable":true,"json":true/);
    assert.ok(epochs.filter((e) => e.mode === 3).length >= 15);
  } finally {
    server.close();
  }
});

test('streamGpsd reports a refused connection as a clear error', async () => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  await assert.rejects(async () => {
    for await (const e of streamGpsd({ host: '127.0.0.1', port, idleTimeoutMs: 2000 })) assert.fail(String(e));
  }, /gpsd at 127\.0\.0\.1:\d+: connect ECONNREFUSED/);
});
