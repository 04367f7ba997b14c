import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  fromWeekTow,
  gpsMinusUtc,
  gpsToIso,
  gpsToTai,
  gpsToUtcParts,
  gpsWeekTow,
  LEAP_SECONDS,
  resolveWeekRollover,
  utcToGps,
  gpsToUnixMs,
  gpsToTaiIso,
} from './time.ts';

test('GPS - UTC is 18 s since 2017-01-01 and 0 at the GPS epoch', () => {
  assert.equal(gpsMinusUtc(Date.parse('2017-01-01T00:00:00Z')), 18);
  assert.equal(gpsMinusUtc(Date.parse('2026-11-23T00:00:00Z')), 18);
  assert.equal(gpsMinusUtc(Date.parse('2016-12-31T23:59:59Z')), 17);
  assert.equal(utcToGps(Date.parse('1980-01-06T00:00:00Z')), 0);
});

test('every leap second date: the offset steps by one and 23:59:60 is its own GPS second', () => {
  for (const leap of LEAP_SECONDS.filter((l) => l.date >= '1981')) {
    const midnight = Date.parse(`${leap.date}T00:00:00Z`);
    const before = utcToGps(midnight - 1000);
    const after = utcToGps(midnight);
    // Two UTC seconds apart in GPS time: 23:59:59 and 00:00:00 bracket the inserted 23:59:60.
    assert.equal(after - before, 2, leap.date);
    assert.equal(gpsMinusUtc(midnight) - gpsMinusUtc(midnight - 1000), 1, leap.date);
    const leapParts = gpsToUtcParts(before + 1);
    assert.equal(leapParts.second, 60, `${leap.date} leap second reads 23:59:60`);
    assert.equal(leapParts.hour, 23);
    assert.equal(leapParts.minute, 59);
    assert.match(gpsToIso(before + 1.5), /T23:59:60\.500Z$/);
    assert.equal(gpsToIso(after), `${leap.date}T00:00:00.000Z`);
    assert.equal(gpsToUnixMs(before), midnight - 1000);
    assert.equal(gpsToUnixMs(after), midnight);
    assert.equal(gpsToTai(after) - after, 19);
  }
});

test('UTC -> GPS -> UTC round trips to the millisecond on both sides of every leap second', () => {
  for (const leap of LEAP_SECONDS.filter((l) => l.date >= '1981')) {
    const midnight = Date.parse(`${leap.date}T00:00:00Z`);
    for (const offset of [-86400000, -1500, -1, 0, 1, 999, 3600000]) {
      const utc = midnight + offset;
      assert.equal(gpsToUnixMs(utcToGps(utc)), utc, `${leap.date} ${offset}`);
    }
  }
});

test('the 2019-04-06 week rollover: week 2048 starts at 23:59:42 UTC and 10-bit week 0 resolves to 2048', () => {
  const start = utcToGps(Date.parse('2019-04-06T23:59:42Z'));
  assert.deepEqual(gpsWeekTow(start), { week: 2048, tow: 0 });
  assert.deepEqual(gpsWeekTow(start - 1), { week: 2047, tow: 604799 });
  assert.equal(resolveWeekRollover(0, start), 2048);
  assert.equal(resolveWeekRollover(1023, start - 1), 2047);
  assert.equal(resolveWeekRollover(1023, start + 3600), 2047);
  assert.equal(resolveWeekRollover(5, utcToGps(Date.parse('2019-05-12T00:00:00Z'))), 2053);
  // The first rollover, 1999-08-22: 10-bit week 0 then meant week 1024.
  assert.equal(resolveWeekRollover(0, utcToGps(Date.parse('1999-08-22T12:00:00Z'))), 1024);
  assert.equal(gpsToIso(fromWeekTow(2048, 0)), '2019-04-06T23:59:42.000Z');
  assert.equal(resolveWeekRollover(2155 % 8192, fromWeekTow(2155, 0), 13), 2155);
});

test('week and time of week invert each other', () => {
  for (const t of [0, 1, 604799.5, 604800, 1303948818.25]) {
    const { week, tow } = gpsWeekTow(t);
    assert.equal(fromWeekTow(week, tow), t);
    assert.ok(tow >= 0 && tow < 604800);
  }
});

test('TAI reads 37 s ahead of UTC since 2017 and 19 s ahead of GPS always', () => {
  const gps = utcToGps(Date.parse('2026-11-23T12:00:00Z'));
  assert.equal(gpsToTaiIso(gps), '2026-11-23T12:00:37.000 TAI');
  assert.equal(gpsToTaiIso(0), '1980-01-06T00:00:19.000 TAI');
});
