/** Variant B key and date formats. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatValidUntil, newLicenseKey, normalizeLicenseKey, parseIsoDateTime } from './format.ts';

test('new keys are LTC and eight groups of four upper-case hex digits, all different', () => {
  const keys = new Set(Array.from({ length: 1000 }, newLicenseKey));
  assert.equal(keys.size, 1000);
  for (const k of keys) assert.match(k, /^LTC(-[0-9A-F]{4}){8}$/);
});

test('normalizing accepts any case and blanks, and rejects everything else', () => {
  const k = newLicenseKey();
  assert.equal(normalizeLicenseKey(` ${k.toLowerCase()}\n`), k);
  for (const bad of ['', 'LTC', `${k}-0000`, k.slice(0, -1), k.replace('LTC', 'ABC'), k.replaceAll('-', ''), `${k.slice(0, -1)}G`]) {
    assert.equal(normalizeLicenseKey(bad), null, bad);
  }
});

test('valid_until has no timezone suffix and whole seconds', () => {
  assert.equal(formatValidUntil(new Date('2027-02-03T04:05:06.789Z')), '2027-02-03T04:05:06');
});

test('ISO datetimes parse with or without a zone (UTC when none); other text does not', () => {
  assert.equal(parseIsoDateTime('2026-09-04T00:00:00')?.toISOString(), '2026-09-04T00:00:00.000Z');
  assert.equal(parseIsoDateTime('2026-09-04T02:00:00+02:00')?.toISOString(), '2026-09-04T00:00:00.000Z');
  assert.equal(parseIsoDateTime('2026-09-04')?.toISOString(), '2026-09-04T00:00:00.000Z');
  assert.equal(parseIsoDateTime('2026-09-04 10:11:12.5Z')?.toISOString(), '2026-09-04T10:11:12.500Z');
  for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-09-04T25:00:00', '1e9', '']) assert.equal(parseIsoDateTime(bad), null, bad);
});
