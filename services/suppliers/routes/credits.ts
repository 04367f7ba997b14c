/** GET /api/v1/credits/balance: the account's one prepaid balance (CONTRACT "Credits"), from the ledger. */
import type { ServiceApp } from '../../../platform/http/app.ts';
import { getBalance, microsToUsd } from '../../../platform/billing/index.ts';
import { who } from '../auth.ts';
import type { Deps } from '../jobs.ts';
import { security } from './responses.ts';

export function registerCredits(app: ServiceApp, deps: Deps): void {
  app.get('/api/v1/credits/balance', { preValidation: deps.auth, schema: { security, tags: ['Account'], summary: 'Credit balance' } }, async (req) => {
    const b = await getBalance(deps.ctx.db, who(req).accountId);
    return { account_id: b.accountId, balance_usd: microsToUsd(b.availableMicros), held_usd: microsToUsd(b.heldMicros), currency: 'USD' };
  });
}
