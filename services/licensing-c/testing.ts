/** Helpers for the variant C tests: a started service, registration and calls with a bearer key. */
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import { licensingCService } from './service.ts';

export interface CTest {
  svc: TestService;
  register(plan?: string): Promise<{ key: string; id: string; body: Record<string, unknown> }>;
  as(key: string, path: string, init?: { method?: string; body?: unknown; rawBody?: string }): ReturnType<typeof call>;
  generate(key: string, body?: Record<string, unknown>): ReturnType<typeof call>;
  validate(licenseKey: string): ReturnType<typeof call>;
}

let counter = 0;

export async function startC(): Promise<CTest> {
  const svc = await startTestService(licensingCService);
  const as: CTest['as'] = (key, path, init = {}) => call(`${svc.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}` } });
  return {
    svc,
    as,
    async register(plan = 'starter') {
      const res = await call(`${svc.url}/api/v1/customers/register`, {
        body: { email: `c${++counter}-${process.pid}@example.test`, company_name: `Company ${counter}`, plan },
      });
      if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { key: res.body.api_key, id: res.body.id, body: res.body };
    },
    generate: (key, body = {}) => as(key, '/api/v1/licenses/generate', { body: { end_customer_id: 'end-1', features: ['pro'], ...body } }),
    validate: (licenseKey) => call(`${svc.url}/api/v1/licenses/validate`, { body: { license_key: licenseKey } }),
  };
}
