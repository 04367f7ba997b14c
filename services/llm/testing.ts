/** Test helpers of the language API: a started service with an admin key, tenants, license keys. */
import { issueFeatureKey } from '../../platform/licenses/feature-keys.ts';
import { call, startTestService, type TestService } from '../../platform/testing/harness.ts';
import { llmService } from './service.ts';

export interface LlmTest {
  t: TestService;
  admin: string;
  accountId: string;
  /** Creates a tenant of the admin's account; returns its id, slug and key. */
  tenant(o?: { tier?: string; settings?: Record<string, unknown>; slug?: string }): Promise<{ id: string; slug: string; key: string }>;
  license(features: string[]): Promise<string>;
  req(path: string, key: string, init?: { method?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string }): ReturnType<typeof call>;
  close(): Promise<void>;
}

let n = 0;

export async function startLlm(): Promise<LlmTest> {
  const t = await startTestService(llmService);
  const { key: admin, accountId } = await t.newKey({ role: 'admin', plan: 'enterprise' });
  const req: LlmTest['req'] = (path, key, init = {}) => call(`${t.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
  return {
    t,
    admin,
    accountId,
    req,
    async tenant(o = {}) {
      const slug = o.slug ?? `tenant-${++n}-${Math.random().toString(36).slice(2, 8)}`;
      const r = await req('/v1/tenants', admin, { body: { name: slug, slug, tier: o.tier ?? 'enterprise', ...(o.settings ? { settings: o.settings } : {}) } });
      if (r.status !== 201) throw new Error(`tenant creation: ${r.status} ${JSON.stringify(r.body)}`);
      return { id: r.body.id, slug, key: r.body.api_key };
    },
    async license(features) {
      return (await issueFeatureKey(t.db, { service: 'llm', features })).license_key;
    },
    close: () => t.close(),
  };
}
