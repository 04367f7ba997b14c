/**
 * Licensing benchmark: requests per second and p99 latency of the validation routes of
 * variants A, B and C, each next to a trivial route of the same server measured in the same
 * run (ratio), variant A also next to the platform's floor for a POST of the same body (an
 * empty handler), and ML-DSA-65 sign and verify rates of both implementations.
 * The load comes from autocannon in a child process, 32 connections, 5 s per measurement,
 * each baseline after one untimed second of warm-up.
 */
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { generateKeyPair, sign, verify } from '../../engines/crypto/index.ts';
import { call, startTestService } from '../../platform/testing/harness.ts';
import { licensingCService } from '../../services/licensing-c/service.ts';
import { licensingService } from '../../services/licensing/service.ts';
import { measure, measureWarm, row } from './lib/http-load.ts';
import { startPostFloor } from './lib/post-floor.ts';

function rate(label: string, n: number, fn: () => unknown): number {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  const perSecond = n / ((performance.now() - t0) / 1000);
  console.log(`${label.padEnd(44)} ${perSecond.toFixed(0).padStart(7)} /s`);
  return perSecond;
}

async function asyncRate(label: string, n: number, fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  const perSecond = n / ((performance.now() - t0) / 1000);
  console.log(`${label.padEnd(44)} ${perSecond.toFixed(0).padStart(7)} /s`);
  return perSecond;
}

export async function run(): Promise<void> {
  console.log('-- ML-DSA-65, one core');
  const message = new TextEncoder().encode('x'.repeat(600));
  const kp = await generateKeyPair('ML-DSA-65');
  const sig = await sign('ML-DSA-65', kp.secretKey, message);
  const oqsVerify = await asyncRate('verify, liboqs (WebAssembly)', 2000, () => verify('ML-DSA-65', kp.publicKey, message, sig));
  await asyncRate('sign, liboqs (WebAssembly)', 300, () => sign('ML-DSA-65', kp.secretKey, message));
  const nobleVerify = rate('verify, @noble/post-quantum', 200, () => ml_dsa65.verify(sig, message, kp.publicKey));
  rate('sign, @noble/post-quantum', 40, () => ml_dsa65.sign(message, kp.secretKey));
  console.log(`liboqs verifies ${(oqsVerify / nobleVerify).toFixed(1)}x faster than noble`);

  const a = await startTestService(licensingService);
  const c = await startTestService(licensingCService);
  try {
    const { key } = await a.newKey({ plan: 'Enterprise' });
    const bearer = { authorization: `Bearer ${key}` };
    const issue = async () =>
      (await call(`${a.url}/api/v1/v2/licenses`, { headers: bearer, body: { entitlements: ['feature:bench'] } })).body
        .artifact_compact as string;
    const one = await issue();
    const distinct: string[] = [];
    for (let i = 0; i < 3000; i++) distinct.push(await issue());

    const gen = await call(`${a.url}/api/v1/licenses/generate`, {
      headers: { 'x-api-key': key },
      body: { end_customer_id: 'bench-customer', features: ['pro'] },
    });
    const register = await call(`${c.url}/api/v1/customers/register`, {
      body: { email: 'bench@example.test', company_name: 'Bench', plan: 'enterprise' },
    });
    const cGen = await call(`${c.url}/api/v1/licenses/generate`, {
      headers: { authorization: `Bearer ${register.body.api_key}` },
      body: { end_customer_id: 'bench-customer', features: ['pro'] },
    });

    console.log('\n-- licensing (A and B on one server)');
    const trivialA = await measureWarm({ url: `${a.url}/` });
    console.log(row('GET / (trivial route)', trivialA));
    const sameBody = JSON.stringify({ artifact_compact: one });
    const same = await measureWarm({ url: `${a.url}/api/v1/v2/validate`, method: 'POST', headers: bearer, bodies: [sameBody] });
    console.log(row('A validate, same artifact', same, trivialA));
    const floor = await startPostFloor('artifact_compact');
    try {
      const floorResult = await measureWarm({ url: floor.url, method: 'POST', bodies: [sameBody] });
      console.log(row(`POST of the same ${(sameBody.length / 1024).toFixed(1)} KB body, empty handler`, floorResult, trivialA));
      console.log(`   A validate (same artifact) vs that floor: ${(same.rps / floorResult.rps).toFixed(2)}x`);
    } finally {
      await floor.close();
    }
    // The distinct-artifact rows are not warmed by measureWarm (a warm-up would validate their
    // artifacts); the same-artifact row above has warmed their route.
    const distinctBodies = distinct.map((t) => JSON.stringify({ artifact_compact: t }));
    // Two figures: artifacts this server has not validated yet (each needs its ML-DSA
    // verification first; over 2 s most are seen once or twice), and the same artifacts once
    // each has been validated, as for a fleet of devices that validate again and again.
    const distinctResult = await measure({ url: `${a.url}/api/v1/v2/validate`, method: 'POST', headers: bearer, bodies: distinctBodies, durationSeconds: 2 });
    console.log(row(`A validate, ${distinct.length} distinct artifacts, new to the server`, distinctResult, trivialA));
    console.log(`   distinct-artifact rate vs one-core liboqs verify: ${(distinctResult.rps / oqsVerify).toFixed(2)}x`);
    for (const body of distinctBodies) await call(`${a.url}/api/v1/v2/validate`, { headers: bearer, rawBody: body });
    const seenResult = await measure({ url: `${a.url}/api/v1/v2/validate`, method: 'POST', headers: bearer, bodies: distinctBodies });
    console.log(row(`A validate, the same ${distinct.length} artifacts, each validated before`, seenResult, trivialA));
    console.log(
      row(
        'B validate',
        await measureWarm({
          url: `${a.url}/api/v1/licenses/validate`,
          method: 'POST',
          headers: { 'x-api-key': key },
          bodies: [JSON.stringify({ license_key: gen.body.license_key, end_customer_id: 'bench-customer' })],
        }),
        trivialA,
      ),
    );

    console.log('\n-- licensing-c');
    const trivialC = await measureWarm({ url: `${c.url}/health` });
    console.log(row('GET /health (trivial route)', trivialC));
    console.log(
      row(
        'C validate',
        await measureWarm({ url: `${c.url}/api/v1/licenses/validate`, method: 'POST', bodies: [JSON.stringify({ license_key: cGen.body.license_key })] }),
        trivialC,
      ),
    );
  } finally {
    await a.close();
    await c.close();
  }
}
