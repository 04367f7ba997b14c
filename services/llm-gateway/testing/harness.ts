/** Test helpers of the gateway: a gateway on a chosen model configuration, console users, keys, credit. */
import { randomBytes } from 'node:crypto';
import { parseConfig } from '../../../engines/language/config.ts';
import { topUp } from '../../../platform/billing/index.ts';
import { createAccount } from '../../../platform/identity/accounts.ts';
import { createConsoleUser } from '../../../platform/identity/console-users.ts';
import type { ServiceDefinition } from '../../../platform/service.ts';
import { call, startTestService, type TestService } from '../../../platform/testing/harness.ts';
import type { Gateway, GatewayOptions } from '../gateway.ts';
import { createConsoleKey } from '../keys.ts';
import { llmGatewayService } from '../service.ts';

export interface GatewayUnderTest extends TestService {
  /** A workspace with `usd` of credit and one console key; returns its raw key. */
  workspace(usd?: number): Promise<{ accountId: string; key: string; keyId: string }>;
  /** A console user of `accountId` (a new workspace when omitted), signed in: its cookie header. */
  signIn(accountId?: string): Promise<{ cookie: string; accountId: string; email: string; password: string }>;
  /** The call pipeline (its credit leases). */
  gateway: Gateway;
  /**
   * Writes every finished call to the ledger and gives back every lease no call runs on: the
   * ledger, the usage rows and the balance then read exactly as after per-call settlement.
   */
  drain(): Promise<void>;
  /** Another gateway instance (own leases, own port) on the same store, as a second process would be. */
  another(): Promise<{ url: string; gateway: Gateway; close(): Promise<void> }>;
}

/** Models served by `upstreamUrl` (a fake upstream), priced 1 and 2 micro-dollars per input and output token. */
export function upstreamModels(upstreamUrl: string, extra: Record<string, unknown>[] = []) {
  const m = (id: string, more: Record<string, unknown> = {}) => ({
    id,
    provider: 'openai',
    base_url: upstreamUrl,
    pricing: { input: 1, output: 2 },
    context_window: 8192,
    max_output_tokens: 100,
    timeout_ms: 5000,
    retries: 1,
    ...more,
  });
  return parseConfig({
    models: [m('fast'), m('slow-stream'), m('status-500'), m('status-400'), m('status-429'), m('status-503'), m('flaky-503'), ...extra.map((e) => m(String(e.id), e))],
  });
}

export async function startGateway(options: GatewayOptions & { models?: ReturnType<typeof parseConfig> } = {}): Promise<GatewayUnderTest> {
  const def: ServiceDefinition = {
    ...llmGatewayService,
    async build(ctx, o) {
      const { build } = await import('../app.ts');
      return build(ctx, { ...o, ...options });
    },
  };
  const service = await startTestService(def);
  const { gatewayOf, build } = await import('../app.ts');
  const gateway = gatewayOf(service.app)!;
  let n = 0;
  const newAccount = async () => (await createAccount(service.db, { email: `ws${++n}-${randomBytes(4).toString('hex')}@example.test` })).id;
  return Object.assign(service, {
    gateway,
    drain: () => gateway.leases.drain(),
    async another() {
      const app = await build(service.ctx, { prefix: '', ...options });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      return { url: `http://127.0.0.1:${port}`, gateway: gatewayOf(app)!, close: () => app.close() };
    },
    async workspace(usd = 10) {
      const accountId = await newAccount();
      if (usd > 0) await topUp(service.db, { accountId, micros: Math.round(usd * 1e6) });
      const created = await createConsoleKey(service.db, accountId, 'test key');
      return { accountId, key: created.key, keyId: created.id };
    },
    async signIn(accountId?: string) {
      const account = accountId ?? (await newAccount());
      const email = `console${++n}-${randomBytes(4).toString('hex')}@example.test`;
      const password = 'correct horse battery';
      await createConsoleUser(service.db, { accountId: account, email, password });
      const res = await fetch(`${service.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
      const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
      if (res.status !== 200 || !cookie) throw new Error(`sign-in failed: ${res.status}`);
      return { cookie, accountId: account, email, password };
    },
  });
}

export { call };
