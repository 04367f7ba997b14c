/** Runs one HTTP load measurement from a child process and prints a row of figures. */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface LoadResult {
  rps: number;
  p99: number;
  p50: number;
  errors: number;
  non2xx: number;
  total: number;
}

export interface LoadSpec {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Request bodies, used in turn; one body repeats it. */
  bodies?: string[];
  durationSeconds?: number;
  connections?: number;
}

export function measure(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./load-worker.mjs', import.meta.url)), { stdio: 'inherit' });
    child.once('message', (m) => resolve(m as LoadResult));
    child.once('error', reject);
    child.send({
      url: spec.url,
      method: spec.method ?? 'GET',
      headers: { 'content-type': 'application/json', ...spec.headers },
      bodies: spec.bodies ?? null,
      duration: spec.durationSeconds ?? 5,
      connections: spec.connections ?? 32,
    });
  });
}

/**
 * One untimed second of the same load, then the timed measurement: a route's first load runs
 * on code V8 has not optimised yet (the server's and the load generator's), and a cold route
 * set beside a warmed baseline would be understated.
 */
export async function measureWarm(spec: LoadSpec): Promise<LoadResult> {
  await measure({ ...spec, durationSeconds: 1 });
  return measure(spec);
}

export function row(label: string, r: LoadResult, baseline?: LoadResult): string {
  const ratio = baseline ? `  ${(r.rps / baseline.rps).toFixed(2)}x trivial` : '';
  const bad = r.errors || r.non2xx ? `  (${r.errors} errors, ${r.non2xx} non-2xx)` : '';
  return `${label.padEnd(44)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${String(r.p50).padStart(3)} ms  p99 ${String(r.p99).padStart(4)} ms${ratio}${bad}`;
}
