import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeUbx, splitUbx, UBX, frameKey } from './ubx.ts';
import { decodeNavSol } from './ubx-messages.ts';
import { replayLog } from './replay.ts';
import { gpsdLog } from './testing/fixtures.ts';

function navSol(): Buffer {
  const p = Buffer.alloc(52);
  p.writeUInt32LE(420964000, 0);
  p.writeInt16LE(2024, 8);
  p[10] = 3;
  p[11] = 0x0d;
  p.writeInt32LE(-238607106, 12);
  p.writeInt32LE(-392219051, 16);
  p.writeInt32LE(441436073, 20);
  p.writeUInt32LE(165, 24);
  p.writeUInt16LE(173, 44);
  p[47] = 9;
  return encodeUbx(0x01, 0x06, p);
}

test('a NAV-SOL frame round-trips through encode, split and decode', () => {
  const { frames, errors } = splitUbx(navSol());
  assert.equal(errors.length, 0);
  assert.equal(frameKey(frames[0]), UBX.NAV_SOL);
  const s = decodeNavSol(frames[0]);
  assert.deepEqual(s.ecef, [-2386071.06, -3922190.51, 4414360.73]);
  assert.equal(s.numSv, 9);
  assert.equal(s.pdop, 1.73);
});

test('a frame with a bad checksum is rejected with UBX_CHECKSUM and yields no position', () => {
  const bad = navSol();
  bad[20] ^= 0x40;
  const r = replayLog(bad);
  assert.equal(r.errors.length, 1);
  assert.equal(r.errors[0].code, 'UBX_CHECKSUM');
  assert.ok(r.epochs.every((e) => e.lat === undefined));
});

test('flipping a byte inside a real log drops exactly that frame', () => {
  const log = Buffer.from(gpsdLog('ublox-neo-m8t.log'));
  const clean = replayLog(log);
  const first = splitUbx(log).frames.find((f) => frameKey(f) === UBX.NAV_SOL)!;
  log[first.offset + 20] ^= 0xff;
  const broken = replayLog(log);
  assert.equal(broken.errors.filter((e) => e.code === 'UBX_CHECKSUM').length, 1);
  assert.ok(broken.epochs.filter((e) => e.lat !== undefined).length <= clean.epochs.filter((e) => e.lat !== undefined).length);
});

test('random bytes give errors or nothing, never a crash or a position', () => {
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed & 0xff;
  };
  const junk = Buffer.alloc(20000);
  for (let i = 0; i < junk.length; i++) junk[i] = rand();
  for (let i = 0; i < junk.length; i += 997) {
    junk[i] = 0xb5;
    junk[i + 1] = 0x62;
  }
  const r = replayLog(junk);
  assert.ok(r.epochs.every((e) => e.lat === undefined));
});
