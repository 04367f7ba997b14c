/** Test helpers for suppliers: the service on a fresh database with its workers warm, clients, circuits and credits. */
import { jsonClient, type TestService } from '../../platform/testing/harness.ts';
import { creditUsd, startWarm } from '../../platform/testing/quantum.ts';
import { suppliersService } from './service.ts';

export { BELL, ghz } from '../../platform/testing/quantum.ts';

export function startSuppliers(): Promise<TestService> {
  return startWarm(suppliersService);
}

export function client(svc: TestService, key: string, style: 'x-api-key' | 'bearer' = 'x-api-key') {
  return jsonClient(svc.url, style === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key });
}

export async function credit(svc: TestService, accountId: string, usd: number): Promise<void> {
  await creditUsd(svc.db, accountId, usd, 'test');
}

/** Polls a status path until the job's status is one of `done` (case-insensitive). */
export async function waitStatus(get: (p: string) => Promise<{ status: number; body: any }>, path: string, done = ['completed', 'failed', 'cancelled'], ms = 120_000) {
  const end = Date.now() + ms;
  for (;;) {
    const r = await get(path);
    if (r.status !== 200 || done.includes(String(r.body.status).toLowerCase()) || Date.now() > end) return r;
    await new Promise((res) => setTimeout(res, 100));
  }
}
