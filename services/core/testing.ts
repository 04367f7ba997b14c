/** Test helpers of the core service: a running service, keys per plan, and calls with a key. */
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import { coreService } from './service.ts';

export interface CoreTest {
  svc: TestService;
  /** A key of a new account on `plan` (default free). */
  key(plan?: string): Promise<string>;
  /** A call with `X-API-Key: key`. */
  as(key: string, path: string, init?: { method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): ReturnType<typeof call>;
  /** Waits until the job reaches a terminal state (or `timeoutMs` passes), then returns GET /api/v2/optimize/{id}. */
  settle(key: string, jobId: string, timeoutMs?: number): Promise<Record<string, any>>;
}

export { BELL } from '../../platform/testing/quantum.ts';

/** Three qubits with gates the optimizer removes: depth falls. */
export const REDUNDANT =
  'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[3];\ncreg c[3];\nh q[0];\nh q[0];\nh q[0];\ncx q[0],q[1];\ncx q[0],q[1];\ncx q[0],q[1];\nx q[2];\nx q[2];\ncx q[1],q[2];\nmeasure q -> c;\n';

export async function startCore(): Promise<CoreTest> {
  const svc = await startTestService(coreService);
  const as: CoreTest['as'] = (key, path, init = {}) => call(`${svc.url}${path}`, { ...init, headers: { 'x-api-key': key, ...init.headers } });
  return {
    svc,
    as,
    async key(plan = 'free') {
      return (await svc.newKey({ plan })).key;
    },
    async settle(key, jobId, timeoutMs = 60_000) {
      // Polls the job row (not the API, whose requests count against the key's rate), then reads the job once.
      const until = Date.now() + timeoutMs;
      for (;;) {
        const [row] = await svc.db.query<{ status: string }>('SELECT status FROM quantum_jobs WHERE id = $1', [jobId]);
        if (!row) throw new Error(`no job ${jobId}`);
        if (['completed', 'failed', 'cancelled'].includes(row.status)) break;
        if (Date.now() > until) throw new Error(`job ${jobId} still ${row.status} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const res = await as(key, `/api/v2/optimize/${jobId}`);
      if (res.status !== 200) throw new Error(`GET optimize ${jobId}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.data;
    },
  };
}
