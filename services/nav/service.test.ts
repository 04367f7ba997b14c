import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { verify } from '../../engines/crypto/algorithms.ts';
import { parseNav, parseObs, solveFile } from '../../engines/gnss/index.ts';
import { gpsWeekTow, utcToGps } from '../../engines/gnss/time.ts';
import { GPSD_DIR, RINEX_DIR, STATIONS } from '../../engines/gnss/testing/fixtures.ts';
import { decodeBase64, signedBytes, verifyBundle } from '../../platform/evidence/index.ts';
import { call, type TestService } from '../../platform/testing/harness.ts';
import { startNav, startSibling, until } from './testing.ts';
import { readFileSync } from 'node:fs';

let svc: TestService & { auth: Record<string, string> };
let H: Record<string, string>;

before(async () => {
  svc = await startNav();
  H = svc.auth;
  await until(`${svc.url}/position/latest`, H, (b) => b?.success === true);
});
after(async () => {
  await svc?.close();
});

test('every route but /health and /evidence/keys needs a bearer key, and refusals use the envelope', async () => {
  for (const [method, path] of [
    ['GET', '/position/latest'],
    ['POST', '/position'],
    ['POST', '/timing'],
    ['GET', '/timing/status'],
    ['POST', '/timing/sync'],
    ['GET', '/spoofing/status'],
    ['POST', '/spoofing/analyze'],
    ['GET', '/spoofing/history'],
    ['GET', '/holdover/status'],
    ['POST', '/holdover/calibrate'],
    ['GET', '/holdover/metrics'],
    ['POST', '/evidence'],
    ['GET', '/evidence/evb_x'],
    ['POST', '/evidence/verify'],
    ['GET', '/integrity'],
    ['GET', '/integrity/constellation'],
  ] as const) {
    const r = await call(`${svc.url}${path}`, { method, headers: { authorization: 'Bearer nav_not_a_key' }, body: method === 'POST' ? {} : undefined });
    assert.equal(r.status, 401, `${method} ${path}`);
    assert.deepEqual(Object.keys(r.body), ['success', 'error']);
    assert.equal(r.body.error.code, 'UNAUTHORIZED');
  }
  assert.equal((await call(`${svc.url}/health`)).status, 200);
  const keys = await call(`${svc.url}/evidence/keys`);
  assert.equal(keys.status, 200);
  assert.ok(keys.body.keys.length >= 1);
});

test('malformed JSON, wrong types and unknown routes answer in the error envelope', async () => {
  const bad = await call(`${svc.url}/position`, { headers: H, rawBody: '{"authenticate": tru' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'INVALID_REQUEST');
  const wrong = await call(`${svc.url}/position`, { headers: H, body: { require_multi_constellation: 'perhaps' } });
  assert.equal(wrong.status, 400);
  assert.equal(wrong.body.success, false);
  const limit = await call(`${svc.url}/spoofing/history?limit=0`, { headers: H });
  assert.equal(limit.status, 400);
  const order = await call(`${svc.url}/spoofing/history?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`, { headers: H });
  assert.equal(order.status, 400);
  assert.match(order.body.error.message, /from must be before to/);
  const missing = await call(`${svc.url}/nowhere`, { headers: H });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'NOT_FOUND');
});

test('POST /position is a GPS + Galileo fix near the site with covariance accuracies, Doppler speed and a verifiable ML-DSA-65 signature', async () => {
  const r = await call(`${svc.url}/position`, { headers: H, body: { require_multi_constellation: true } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const { position, integrity, signature, position_id } = r.body.data;
  assert.match(position_id, /^pos_[0-9a-f]{24}$/);
  // The default site (Greenwich): a single-point fix is within metres.
  assert.ok(Math.abs(position.latitude - 51.477928) < 1e-4 && Math.abs(position.longitude + 0.001545) < 1e-4, JSON.stringify(position));
  assert.ok(position.horizontal_accuracy_m > 0.1 && position.horizontal_accuracy_m < 10);
  assert.ok(position.accuracy_m >= position.horizontal_accuracy_m && position.accuracy_m >= position.vertical_accuracy_m);
  // A static receiver: Doppler speed near zero and therefore no heading.
  assert.ok(position.speed_mps !== null && position.speed_mps < 0.2);
  assert.equal(position.heading_deg, null);
  assert.deepEqual(integrity.constellations, ['GPS', 'Galileo']);
  assert.ok(integrity.satellites_used >= 8);
  assert.equal(integrity.raim.available, true);
  assert.equal(integrity.spoofing_detected, false);
  assert.equal(signature.algorithm, 'ML-DSA-65');
  const keys = (await call(`${svc.url}/evidence/keys`)).body.keys as { key_id: string; public_key: string }[];
  const key = keys.find((k) => k.key_id === signature.public_key_id);
  assert.ok(key, 'the signing key is published');
  const message = signedBytes({ position_id, position, integrity });
  assert.equal(await verify('ML-DSA-65', decodeBase64(key.public_key)!, message, decodeBase64(signature.value)!), true);
  const tampered = signedBytes({ position_id, position: { ...position, latitude: position.latitude + 1e-6 }, integrity });
  assert.equal(await verify('ML-DSA-65', decodeBase64(key.public_key)!, tampered, decodeBase64(signature.value)!), false);
});

test('pqc_algorithm ML-DSA-87 signs with an ML-DSA-87 key, other names are refused, and authenticate false leaves it unsigned', async () => {
  const r87 = await call(`${svc.url}/position`, { headers: H, body: { pqc_algorithm: 'ML-DSA-87' } });
  assert.equal(r87.status, 200);
  assert.equal(r87.body.data.signature.algorithm, 'ML-DSA-87');
  assert.match(r87.body.data.signature.public_key_id, /mldsa87/);
  const bad = await call(`${svc.url}/position`, { headers: H, body: { pqc_algorithm: 'Ed25519' } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'UNSUPPORTED_ALGORITHM');
  const plain = await call(`${svc.url}/position`, { headers: H, body: { authenticate: false, spoofing_check: false } });
  assert.equal(plain.body.data.signature, null);
  assert.equal(plain.body.data.integrity.spoofing_detected, null);
});

test('GET /position/latest answers from memory and its age is the time since the epoch arrived', async () => {
  const a = await call(`${svc.url}/position/latest`, { headers: H });
  assert.equal(a.status, 200);
  assert.deepEqual(Object.keys(a.body.data.position), ['latitude', 'longitude', 'altitude', 'timestamp']);
  // Epochs arrive every 100 ms at 10x real time: the latest is never much older than that.
  assert.ok(a.body.data.age_ms >= 0 && a.body.data.age_ms < 1000, String(a.body.data.age_ms));
  await new Promise((r) => setTimeout(r, 300));
  const b = await call(`${svc.url}/position/latest`, { headers: H });
  assert.ok(Date.parse(b.body.data.position.timestamp) > Date.parse(a.body.data.position.timestamp));
});

test('timing reports UTC, TAI 37 s ahead, GPS week and time of week, 18 leap seconds and the clock filter accuracy', async () => {
  const r = await call(`${svc.url}/timing`, { headers: H, body: { include_bounds: true } });
  assert.equal(r.status, 200);
  const t = r.body.data;
  assert.equal(t.source, 'gnss');
  assert.equal(t.leap_seconds, 18);
  assert.ok(Math.abs(Date.parse(t.tai.replace(' TAI', 'Z')) - Date.parse(t.utc) - 37_000) <= 1);
  const { week, tow } = gpsWeekTow(utcToGps(Date.parse(t.utc)));
  assert.equal(t.gps_week, week);
  assert.ok(Math.abs(t.gps_tow - tow) < 0.01);
  assert.ok(t.accuracy_ns > 0 && t.accuracy_ns < 100);
  assert.ok(t.bounds.upper_ns > t.accuracy_ns && t.bounds.lower_ns === -t.bounds.upper_ns && t.bounds.confidence === 0.95);
  const noBounds = await call(`${svc.url}/timing`, { headers: H, body: {} });
  assert.equal(noBounds.body.data.bounds, undefined);
  const status = await call(`${svc.url}/timing/status`, { headers: H });
  assert.equal(status.body.data.status, 'locked');
  assert.equal(status.body.data.source, 'gnss');
  const sync = await call(`${svc.url}/timing/sync`, { method: 'POST', headers: H });
  assert.equal(sync.status, 200, JSON.stringify(sync.body));
  assert.equal(sync.body.data.sync_status, 'synchronized');
  assert.ok(sync.body.data.sync_time_ms > 0 && sync.body.data.new_accuracy_ns > 0);
  assert.equal(typeof sync.body.data.improvement_ns, 'number');
});

test('integrity views count satellites per constellation from the live solution', async () => {
  const i = (await call(`${svc.url}/integrity`, { headers: H })).body.data;
  assert.ok(i.satellites_used <= i.satellites_visible && i.satellites_used >= 8);
  assert.ok(i.pdop >= i.hdop && i.pdop >= i.vdop);
  assert.ok(i.overall_score > 0 && i.overall_score <= 100);
  const c = (await call(`${svc.url}/integrity/constellation`, { headers: H })).body.data.constellations;
  assert.deepEqual(Object.keys(c).sort(), ['GPS', 'Galileo']);
  for (const v of Object.values(c) as { satellites_visible: number; satellites_used: number; cn0_avg: number }[]) {
    assert.ok(v.satellites_used <= v.satellites_visible && v.cn0_avg > 30 && v.cn0_avg < 55);
  }
});

test('holdover calibration fits the clock history, and the metrics measure the quantum sampler entropy', async () => {
  const cal = await until(`${svc.url}/holdover/calibrate`, H, (b) => b?.data?.calibration_status === 'completed', 20_000, { method: 'POST' });
  assert.ok(cal.data.samples >= 10 && cal.data.calibration_time_s > 0);
  assert.ok(Number.isFinite(cal.data.new_drift_estimate_ns_per_hour) && cal.data.drift_sigma_ns_per_hour > 0);
  assert.equal(typeof cal.data.improvement_percent, 'number');
  const status = (await call(`${svc.url}/holdover/status`, { headers: H })).body.data;
  assert.equal(status.active, false);
  assert.ok(status.last_calibration);
  assert.ok(status.max_holdover_duration_h > 0);
  const m = (await call(`${svc.url}/holdover/metrics`, { headers: H })).body.data;
  // An ideal sampler fails a test at its 1 % level now and then, even twice in a row (about
  // 0.04 %): the quality is the min-entropy when the reported sample passed, 0 when it did not.
  const t = m.qrng_tests;
  assert.equal(t.bits, 65536);
  assert.ok(t.min_entropy_per_bit > 0.8 && t.min_entropy_per_bit <= 1, JSON.stringify(m));
  const passed = t.monobit_p >= 0.01 && t.runs_p >= 0.01;
  assert.equal(m.qrng_entropy_quality, passed ? t.min_entropy_per_bit : 0, JSON.stringify(m));
});

test('an evidence bundle verifies, fails when any byte changes, and belongs to its account only', async () => {
  const pos = await call(`${svc.url}/position`, { headers: H, body: { generate_evidence: true } });
  assert.match(pos.body.data.evidence_bundle_id, /^evb_/);
  const made = await call(`${svc.url}/evidence`, { headers: H, body: { position_id: pos.body.data.position_id } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const bundle = made.body.data;
  assert.deepEqual(bundle.position, pos.body.data.position);
  assert.equal(bundle.timing.source, 'gnss');
  assert.match(bundle.position_hash, /^sha3-256:[0-9a-f]{64}$/);
  const got = await call(`${svc.url}/evidence/${bundle.bundle_id}`, { headers: H });
  assert.deepEqual(got.body.data, bundle);
  const ok = await call(`${svc.url}/evidence/verify`, { headers: H, body: { bundle } });
  assert.equal(ok.body.data.valid, true, JSON.stringify(ok.body));
  assert.deepEqual(Object.keys(ok.body.data.checks).sort(), ['position_hash', 'signature', 'timestamp', 'timing_hash']);
  // Offline, as `lattice evidence verify` does: against the published keys only.
  const keys = (await call(`${svc.url}/evidence/keys`)).body;
  assert.equal((await verifyBundle(bundle, { keys, now: new Date(Date.now() + 3600_000) })).valid, true);

  // One changed byte anywhere: in the JSON text as issued, each character position in turn (sampled).
  const text = JSON.stringify(bundle);
  let tried = 0;
  for (let i = 0; i < text.length; i += 7) {
    const c = text[i]!;
    const repl = /[0-9]/.test(c) ? String((Number(c) + 1) % 10) : /[a-z]/.test(c) ? (c === 'z' ? 'y' : String.fromCharCode(c.charCodeAt(0) + 1)) : null;
    if (repl === null) continue;
    let changed: unknown;
    try {
      changed = JSON.parse(text.slice(0, i) + repl + text.slice(i + 1));
    } catch {
      continue;
    }
    tried++;
    const r = await verifyBundle(changed, { keys, kind: 'nav', now: new Date(Date.now() + 3600_000) });
    assert.equal(r.valid, false, `byte ${i} (${c} -> ${repl}) changed without failing verification`);
  }
  assert.ok(tried > 50);
  const tampered = structuredClone(bundle);
  tampered.timing.utc = tampered.timing.utc.replace(/.$/, 'Y');
  const bad = await call(`${svc.url}/evidence/verify`, { headers: H, body: { bundle: tampered } });
  assert.equal(bad.body.data.valid, false);
  assert.equal(bad.body.data.checks.timing_hash.verdict, 'invalid');
  assert.equal(bad.body.data.checks.signature.verdict, 'invalid');

  const other = await svc.newKey();
  const oh = { authorization: `Bearer ${other.key}` };
  assert.equal((await call(`${svc.url}/evidence/${bundle.bundle_id}`, { headers: oh })).status, 404);
  const foreign = await call(`${svc.url}/evidence`, { headers: oh, body: { position_id: pos.body.data.position_id } });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.body.error.code, 'NOT_FOUND');
  const cbor = await fetch(`${svc.url}/evidence`, { method: 'POST', headers: { ...H, 'content-type': 'application/json' }, body: JSON.stringify({ position_id: pos.body.data.position_id, format: 'cbor' }) });
  assert.equal(cbor.status, 200);
  assert.match(cbor.headers.get('content-type') ?? '', /application\/cbor/);
});

test('a replayed RINEX log serves, epoch by epoch, exactly the positions of the engine\'s batch solution, then holds over when it ends', async () => {
  const station = STATIONS[0];
  const batch = solveFile(parseObs(readFileSync(RINEX_DIR + station.obs, 'latin1')), parseNav(readFileSync(RINEX_DIR + station.nav, 'latin1')));
  const byTime = new Map(batch.epochs.flatMap((e) => (e.fix ? [[e.time, e] as const] : [])));
  // 30 s epochs at 300x: one every 100 ms, the whole hour in 12 s.
  const replay = await startSibling(svc, { source: `log:${RINEX_DIR}${station.obs}?nav=${RINEX_DIR}${station.nav}`, rate: 300 });
  try {
    const seen = new Map<string, { latitude: number; longitude: number; altitude: number }>();
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const r = await call(`${replay.url}/position/latest`, { headers: H });
      if (r.status === 200) seen.set(r.body.data.position.timestamp, r.body.data.position);
      const h = await call(`${replay.url}/health`);
      if (seen.size > 0 && h.body.source.connected === false) break;
      await new Promise((res) => setTimeout(res, 40));
    }
    assert.ok(seen.size >= 20, `only ${seen.size} distinct epochs seen`);
    for (const [ts, p] of seen) {
      const e = byTime.get(ts.replace(/\.000Z$/, 'Z')) ?? [...byTime.values()].find((x) => Date.parse(x.time) === Date.parse(ts));
      assert.ok(e, `epoch ${ts} is in the batch solution`);
      assert.ok(Math.abs(p.latitude - e.latitude) < 1e-8 && Math.abs(p.longitude - e.longitude) < 1e-8 && Math.abs(p.altitude - e.altitude) < 0.002, `${ts}: ${JSON.stringify(p)} vs ${JSON.stringify(e)}`);
    }
    const health = await call(`${replay.url}/health`);
    assert.equal(health.body.status, 'degraded');
    await until(`${replay.url}/timing/status`, H, (b) => b?.data?.status === 'holdover', 5000);
    const timing = await call(`${replay.url}/timing`, { headers: H, body: { fallback_to_holdover: false } });
    assert.equal(timing.status, 503);
    assert.equal(timing.body.error.code, 'NO_TIME');
  } finally {
    await replay.app.close();
  }
});

test('past its requests per minute (600 on the standard plan; 3 here) a key gets 429 RATE_LIMIT_EXCEEDED with Retry-After', async () => {
  const limited = await startSibling(svc, { source: `log:${RINEX_DIR}${STATIONS[0].obs}?nav=${RINEX_DIR}${STATIONS[0].nav}`, rate: 1, requestsPerMinute: 3 });
  try {
    // A key of its own: the minute is counted per key across every process on the store.
    const { key } = await svc.newKey();
    const headers = { authorization: `Bearer ${key}` };
    // Minutes are fixed UTC minutes: keep the four requests inside one.
    // Every request counts, a 503 NO_FIX too: wait (on /health, which takes no key) until the
    // log source's first epoch is in, so that the four requests are all answered.
    await until(`${limited.url}/health`, {}, (b) => b?.source?.last_epoch_age_ms !== null && b?.source?.last_epoch_age_ms !== undefined, 30_000);
    const second = new Date().getUTCSeconds();
    if (second > 55) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push(await call(`${limited.url}/integrity`, { headers }));
    assert.deepEqual(codes.map((c) => c.status), [200, 200, 200, 429]);
    assert.equal(codes[3]!.body.error.code, 'RATE_LIMIT_EXCEEDED');
    assert.ok(Number(codes[3]!.headers.get('retry-after')) >= 1);
    assert.equal(codes[0]!.headers.get('x-ratelimit-limit'), '3');
  } finally {
    await limited.app.close();
  }
});

test('a receiver that reports only its own fixes (an NMEA log) is served as the receiver reports it, with RAIM and the measurement checks marked unavailable', async () => {
  const nmea = await startSibling(svc, { source: `log:${GPSD_DIR}ublox-zed-f9p-nmea.log?loop=1`, rate: 10 });
  try {
    const pos = await until(`${nmea.url}/position`, H, (b) => b?.success === true, 10_000, { method: 'POST', body: { require_multi_constellation: true } });
    const { position, integrity } = pos.data;
    assert.ok(Math.abs(position.latitude + 45.8776) < 0.01, JSON.stringify(position));
    assert.ok(position.horizontal_accuracy_m > 0);
    assert.equal(integrity.raim.available, false);
    assert.ok(integrity.constellations.length >= 2, JSON.stringify(integrity));
    const c = (await call(`${nmea.url}/integrity/constellation`, { headers: H })).body.data.constellations;
    assert.ok(Object.keys(c).length >= 3);
    const status = (await call(`${nmea.url}/spoofing/status`, { headers: H })).body.data;
    assert.equal(status.checks_performed.filter((x: { available: boolean }) => x.available).length <= 1, true);
    const t = (await call(`${nmea.url}/timing`, { headers: H, body: {} })).body.data;
    assert.equal(t.source, 'gnss');
    assert.equal(t.accuracy_ns, null);
    const sync = await call(`${nmea.url}/timing/sync`, { method: 'POST', headers: H });
    assert.equal(sync.status, 503);
    assert.equal(sync.body.error.code, 'SYNC_FAILED');
  } finally {
    await nmea.app.close();
  }
});

test('/openapi.json documents every route of interface 7', async () => {
  const doc = (await call(`${svc.url}/openapi.json`)).body;
  const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
  for (const r of [
    'POST /position', 'GET /position/latest', 'POST /timing', 'GET /timing/status', 'POST /timing/sync', 'GET /spoofing/status', 'POST /spoofing/analyze',
    'GET /spoofing/history', 'GET /holdover/status', 'POST /holdover/calibrate', 'GET /holdover/metrics', 'POST /evidence', 'GET /evidence/{bundle_id}',
    'POST /evidence/verify', 'GET /evidence/keys', 'GET /integrity', 'GET /integrity/constellation', 'GET /health',
  ]) assert.ok(routes.includes(r), `${r} missing from ${routes.join(', ')}`);
});
