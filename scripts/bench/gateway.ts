/**
 * Gateway benchmark: a local OpenAI-compatible upstream that answers at once, called directly
 * and through the gateway (whole and streamed), in the same run. Prints the latency the
 * gateway adds (p50/p99 of one connection's sequential calls, gateway minus direct; each call
 * through the gateway checks the key, reserves its worst case from its key's credit lease,
 * and is charged and its usage recorded by the leases' flusher) and the throughput ratio
 * (autocannon, 32 connections, 5 s each).
 * Aims: under 1 ms added at p50 (p99 under 2 ms), at least 0.3 of the direct throughput.
 *
 * The upstream runs in a process of its own, as a model server does: in the gateway's process
 * it would take the gateway's CPU for its own work, and "direct" would measure it with a whole
 * process to itself. The load generator is a third process (lib/http-load.ts).
 *
 * A second baseline: a bare proxy (lib/bare-proxy.ts) in the gateway's place, forwarding each
 * request without checks or accounting. Its ratio to direct is the cost of the second HTTP hop
 * alone on this machine (three processes on its cores where direct has two); the gateway's
 * ratio to it is what the gateway's own work costs.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { startBareProxy } from './lib/bare-proxy.ts';
import { measure, measureWarm, type LoadResult } from './lib/http-load.ts';
import { getBalance } from '../../platform/billing/index.ts';
import { startFakeUpstream } from '../../services/llm-gateway/testing/fake-upstream.ts';
import { startGateway, upstreamModels } from '../../services/llm-gateway/testing/harness.ts';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

const UPSTREAM_CHILD = 'LATTICE_BENCH_GATEWAY_UPSTREAM';

// Forked by run(): this module is the upstream's process.
if (process.env[UPSTREAM_CHILD] === '1' && process.send) {
  void startFakeUpstream({ record: false }).then((up) => {
    process.send!({ url: up.url });
    process.once('disconnect', () => void up.close().then(() => process.exit(0)));
  });
}

async function upstreamProcess(): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(fileURLToPath(import.meta.url), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, [UPSTREAM_CHILD]: '1' }, stdio: 'inherit' });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { url: string }).url));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the upstream process exited (${code})`)));
  });
  return { url, child };
}

function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`${url} answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Latencies of `n` sequential calls on one kept-alive connection, after a warm-up. */
async function latencies(url: string, body: string, headers: Record<string, string>, n: number): Promise<number[]> {
  for (let i = 0; i < 200; i++) await post(url, body, headers);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await post(url, body, headers));
  return out.sort((a, b) => a - b);
}

const fmt = (ms: number): string => `${ms.toFixed(3)} ms`;
const rpsRow = (label: string, r: LoadResult): string =>
  `${label.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s${r.errors || r.non2xx ? `  (${r.errors} errors, ${r.non2xx} non-2xx)` : ''}`;

export async function run(): Promise<void> {
  console.log(`load average at start ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`);
  const upstream = await upstreamProcess();
  const gw = await startGateway({ models: upstreamModels(upstream.url) });
  const bare = await startBareProxy(`${upstream.url}/chat/completions`);
  try {
    const ws = await gw.workspace(1_000_000);
    const auth = { authorization: `Bearer ${ws.key}` };
    const n = Number(process.env.BENCH_CALLS ?? 2000);
    for (const stream of [false, true]) {
      const kind = stream ? 'streamed' : 'whole';
      const body = JSON.stringify({ model: 'fast', messages: [{ role: 'user', content: 'Say five words.' }], max_tokens: 16, stream });
      const direct = await latencies(`${upstream.url}/chat/completions`, body, {}, n);
      const through = await latencies(`${gw.url}/api/v1/chat/completions`, body, auth, n);
      const added50 = quantile(through, 0.5) - quantile(direct, 0.5);
      const added99 = quantile(through, 0.99) - quantile(direct, 0.99);
      console.log(`-- ${kind}: ${n} sequential calls on one connection`);
      console.log(`direct   p50 ${fmt(quantile(direct, 0.5))}  p99 ${fmt(quantile(direct, 0.99))}`);
      console.log(`gateway  p50 ${fmt(quantile(through, 0.5))}  p99 ${fmt(quantile(through, 0.99))}`);
      console.log(`added    p50 ${fmt(added50)} (aim < 1 ms)  p99 ${fmt(added99)}`);
      const directLoad = await measure({ url: `${upstream.url}/chat/completions`, method: 'POST', bodies: [body] });
      const gatewayLoad = await measure({ url: `${gw.url}/api/v1/chat/completions`, method: 'POST', headers: auth, bodies: [body] });
      // The bare proxy has had no calls yet (the other two had the latency runs above).
      const bareLoad = await measureWarm({ url: `${bare.url}/chat/completions`, method: 'POST', bodies: [body] });
      console.log(rpsRow(`direct, ${kind}, 32 connections`, directLoad));
      console.log(rpsRow(`gateway, ${kind}, 32 connections`, gatewayLoad));
      console.log(rpsRow(`bare proxy, ${kind}, 32 connections`, bareLoad));
      console.log(`throughput ratio gateway/direct: ${(gatewayLoad.rps / directLoad.rps).toFixed(2)} (aim >= 0.3); bare proxy/direct ${(bareLoad.rps / directLoad.rps).toFixed(2)}, gateway/bare proxy ${(gatewayLoad.rps / bareLoad.rps).toFixed(2)}\n`);
    }
    // Every finished call written, every lease given back (calls the load generator left
    // running when it stopped finish first): the ledger then shows each call.
    for (const end = Date.now() + 10_000; ; ) {
      await gw.drain();
      if (gw.gateway.leases.openLeases().length === 0 || Date.now() > end) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const [{ n: charged }] = await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM billing_ledger WHERE account_id = $1 AND kind = 'charge'", [ws.accountId]);
    const [{ n: used }] = await gw.db.query<{ n: number }>('SELECT COALESCE(SUM(requests), 0)::int AS n FROM llm_gateway_usage WHERE key_id = $1', [ws.keyId]);
    const [{ n: holds }] = await gw.db.query<{ n: number }>('SELECT count(*)::int AS n FROM billing_holds WHERE account_id = $1', [ws.accountId]);
    const balance = await getBalance(gw.db, ws.accountId);
    console.log(`every call was charged on the ledger: ${charged} charge rows, ${used} requests in the usage rows, ${holds} holds (leases), ${balance.heldMicros} micro-dollars still held`);
  } finally {
    agent.destroy();
    await bare.close();
    await gw.close();
    upstream.child.disconnect();
  }
  console.log(`load average after: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
}
