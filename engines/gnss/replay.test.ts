import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { replayLog } from './replay.ts';
import { GPSD_DIR, gpsdLog } from './testing/fixtures.ts';
import { parseChk } from './testing/gpsd-chk.ts';

const LOGS = ['bu353s4.log', 'ublox-zed-f9p-nmea.log', 'ublox-neo-m8t.log', 'ublox-8-time.log', 'u-blox-m8t-time.log', 'ublox-zed-f9p-sfrbx.log'];

for (const name of LOGS) {
  test(`${name}: every gpsd TPV position is reproduced from the log`, () => {
    const replay = replayLog(gpsdLog(name));
    const chk = parseChk(readFileSync(`${GPSD_DIR}${name}.chk`, 'latin1'));
    const fixes = replay.epochs.filter((e) => e.mode > 1 && e.lat !== undefined);
    assert.ok(fixes.length > 10, `${fixes.length} fixes`);
    let compared = 0;
    for (const t of chk.tpv) {
      if (t.lat === undefined || t.lon === undefined) continue;
      // gpsd dates some old logs by its own rollover rules (2014 -> 2034): compare the time of day.
      // It also reports the last converted latitude/longitude until it converts again, so an
      // earlier fix of the same log may be the one it shows.
      const tod = t.time?.slice(11, 23);
      const upTo = tod ? fixes.filter((e) => (e.timeOfDay ?? '') <= tod) : fixes;
      const match = upTo.find(
        (e) =>
          Math.abs(e.lat! - t.lat!) < 2e-7 &&
          Math.abs(e.lon! - t.lon!) < 2e-7 &&
          (t.altHAE === undefined || (e.altHae !== undefined && Math.abs(e.altHae - t.altHAE) < 0.02)),
      );
      assert.ok(match, `no fix matches TPV ${t.time ?? '(no time)'} ${t.lat},${t.lon},${t.altHAE}`);
      if (t.ecef && tod) {
        const same = fixes.find((e) => e.timeOfDay === tod);
        assert.ok(same?.ecef, `no ECEF fix at ${tod}`);
        for (let k = 0; k < 3; k++) assert.ok(Math.abs(same.ecef[k] - t.ecef[k]) < 0.006, `ECEF ${same.ecef} vs ${t.ecef} at ${tod}`);
      }
      compared++;
    }
    assert.ok(compared >= 10, `${compared} positions compared`);
  });

  test(`${name}: satellites used per epoch agree with gpsd's SKY reports`, () => {
    const replay = replayLog(gpsdLog(name));
    const chk = parseChk(readFileSync(`${GPSD_DIR}${name}.chk`, 'latin1'));
    // gpsd 3.22 does not mark Galileo/BeiDou used from NMEA 4.10 GSA and lists a satellite once
    // per signal: compare distinct GPS and GLONASS satellites used, which both sides decode.
    const ours = replay.epochs
      .filter((e) => e.satellites.length > 0)
      .map((e) => e.satellites.filter((s) => s.used && (s.constellation === 'GPS' || s.constellation === 'GLONASS')).length);
    const theirs = new Set(chk.sky.map((s) => s.usedGpsGlonass));
    assert.ok(ours.length > 0 && theirs.size > 0);
    for (const n of ours) assert.ok(theirs.has(n), `we count ${n} used; gpsd SKY counts ${[...theirs].join(',')}`);
    assert.equal(Math.max(...ours), Math.max(...theirs));
  });
}

test('only the cut-short final frame of a log is reported as an error', () => {
  for (const name of LOGS) {
    const r = replayLog(gpsdLog(name));
    assert.ok(r.errors.length <= 1, name);
    for (const e of r.errors) assert.equal(e.code, 'UBX_CORRUPT', name);
  }
});
