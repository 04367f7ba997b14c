/** Test helpers for the runtime: the service on a fresh database with warm workers, a client, credits. */
import { jsonClient, type TestService } from '../../platform/testing/harness.ts';
import { creditUsd, startWarm } from '../../platform/testing/quantum.ts';
import { runtimeService } from './service.ts';

export { BELL, ghz } from '../../platform/testing/quantum.ts';

/** The priced devices used by the tests: per shot (supplier C), per QPU minute (supplier B). */
export const PER_SHOT_DEVICE = 'lattice_grid_16';
export const PER_MINUTE_DEVICE = 'lattice_line_5';

export function startRuntime(): Promise<TestService> {
  return startWarm(runtimeService);
}

export function client(svc: TestService, key: string) {
  return jsonClient(svc.url, { authorization: `Bearer ${key}` });
}

export async function addCredits(svc: TestService, accountId: string, usd: number): Promise<void> {
  await creditUsd(svc.db, accountId, usd);
}

/** Everything a test compares to prove that a refused request changed nothing. */
export async function snapshot(svc: TestService): Promise<string> {
  const q = async (sql: string) => JSON.stringify(await svc.db.query(sql));
  return [
    await q('SELECT id, phase, hold_id, approved_at, charged_micros FROM runtime_jobs ORDER BY id'),
    await q("SELECT id, status FROM quantum_jobs WHERE service = 'runtime' ORDER BY id"),
    await q('SELECT id, status, amount_micros, charged_micros FROM billing_holds ORDER BY id'),
    await q('SELECT account_id, kind, amount_micros FROM billing_ledger ORDER BY id'),
  ].join('\n');
}

/** Polls the job until `done` says so (or about 20 s pass); returns the last read. */
export async function until(api: ReturnType<typeof client>, jobId: string, done: (body: any) => boolean) {
  let read = await api.get(`/api/v1/runtime/jobs/${jobId}`);
  for (let i = 0; i < 400 && !done(read.body); i++) {
    await new Promise((r) => setTimeout(r, 50));
    read = await api.get(`/api/v1/runtime/jobs/${jobId}`);
  }
  return read;
}
