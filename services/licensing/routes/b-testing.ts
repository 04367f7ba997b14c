/** Helpers for the variant B tests: a started licensing service and short calls with an API key. */
import { call, startTestService, type TestService } from '../../../platform/testing/harness.ts';
import { licensingService } from '../service.ts';

export interface BTest {
  svc: TestService;
  /** A request with `X-API-Key: key`. */
  as(key: string, path: string, init?: { method?: string; body?: unknown; rawBody?: string }): ReturnType<typeof call>;
  generate(key: string, body?: Record<string, unknown>): ReturnType<typeof call>;
}

export async function startB(): Promise<BTest> {
  const svc = await startTestService(licensingService);
  const as: BTest['as'] = (key, path, init = {}) => call(`${svc.url}${path}`, { ...init, headers: { 'x-api-key': key } });
  return {
    svc,
    as,
    generate: (key, body = {}) =>
      as(key, '/api/v1/licenses/generate', { body: { end_customer_id: 'customer-1', features: ['pro'], ...body } }),
  };
}

/** Rows in the variant B tables, to show that a rejected request changed nothing. */
export async function countRows(svc: TestService): Promise<string> {
  const [row] = await svc.db.query<{ l: number; r: number; u: number }>(
    `SELECT (SELECT count(*)::int FROM licensing_b_licenses) AS l,
            (SELECT count(*)::int FROM licensing_b_licenses WHERE revoked_at IS NOT NULL) AS r,
            (SELECT COALESCE(sum(value), 0)::int FROM usage_counters) AS u`,
  );
  return JSON.stringify(row);
}
