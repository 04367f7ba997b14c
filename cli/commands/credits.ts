/** Operator commands for the credits ledger: top up an account and read its balance. */
import type { Command } from 'commander';
import { printResult, withStore, withStoreOptions, type StoreFlags } from '../lib/store.ts';

interface Json extends StoreFlags {
  json?: boolean;
}

async function requireAccount(db: import('../../platform/storage/database.ts').Sql, id: string): Promise<void> {
  const { getAccount } = await import('../../platform/identity/accounts.ts');
  if (!(await getAccount(db, id))) throw new Error(`account not found: ${id}`);
}

export function register(program: Command): void {
  const credits = program.command('credits').description('prepaid credits (one balance per account, kept as a ledger)');
  withStoreOptions(
    credits
      .command('add')
      .requiredOption('--account <id>', 'account id')
      .requiredOption('--usd <amount>', 'amount in US dollars, above zero (at most 6 decimals)')
      .option('--json', 'print one JSON object'),
  ).action(async (o: { account: string; usd: string } & Json) => {
    const { parseTopUpUsd, topUp, usdToMicros, microsToUsd, BillingError } = await import('../../platform/billing/index.ts');
    let usd: number;
    try {
      usd = parseTopUpUsd(o.usd);
    } catch (err) {
      if (err instanceof BillingError) throw new Error(`--usd: ${err.message}`);
      throw err;
    }
    const available = await withStore(o, async (s) => {
      await requireAccount(s.db, o.account);
      return topUp(s.db, { accountId: o.account, micros: usdToMicros(usd), service: 'operator', reference: 'lattice credits add' });
    });
    printResult({ account_id: o.account, balance_usd: microsToUsd(available) }, o.json);
  });

  withStoreOptions(
    credits.command('balance').requiredOption('--account <id>', 'account id').option('--json', 'print one JSON object'),
  ).action(async (o: { account: string } & Json) => {
    const { getBalance, microsToUsd } = await import('../../platform/billing/index.ts');
    const balance = await withStore(o, async (s) => {
      await requireAccount(s.db, o.account);
      return getBalance(s.db, o.account);
    });
    printResult({ account_id: o.account, balance_usd: microsToUsd(balance.availableMicros), held_usd: microsToUsd(balance.heldMicros) }, o.json);
  });
}
