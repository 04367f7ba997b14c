/**
 * Gateway benchmark: a local OpenAI-compatible upstream that answers at once, called directly
 * and through the gateway (whole and streamed), in the same run. Prints the latency the
 * gateway adds (p50/p99 of one connection's sequential calls, gateway minus direct; each call
 * through the gateway checks the key, holds its worst case on the ledger, settles and records
 * usage) and the throughput ratio (autocannon, 32 connections, 5 s each).
 * Aims: under 1 ms added at p50, at least 0.5 of the direct throughput.
 */
import { Agent, request } from 'node:http';
import { measure, type LoadResult } from './lib/http-load.ts';
import { startFakeUpstream } from '../../services/llm-gateway/testing/fake-upstream.ts';
import { startGateway, upstreamModels } from '../../services/llm-gateway/testing/harness.ts';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

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
  const upstream = await startFakeUpstream({ record: false });
  const gw = await startGateway({ models: upstreamModels(upstream.url) });
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
      console.log(rpsRow(`direct, ${kind}, 32 connections`, directLoad));
      console.log(rpsRow(`gateway, ${kind}, 32 connections`, gatewayLoad));
      console.log(`throughput ratio gateway/direct: ${(gatewayLoad.rps / directLoad.rps).toFixed(2)} (aim >= 0.5)\n`);
    }
    const [{ n: charged }] = await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM billing_ledger WHERE account_id = $1 AND kind = 'charge'", [ws.accountId]);
    console.log(`every call was held and settled on the ledger: ${charged} charge rows`);
  } finally {
    agent.destroy();
    await gw.close();
    await upstream.close();
  }
}
