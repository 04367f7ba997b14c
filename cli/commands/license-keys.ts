/**
 * `lattice licenses issue-key` and `lattice licenses revoke-key`: feature license keys
 * (`LQK-XXXX-XXXX-XXXX`) that the language API reads from `X-License-Key`.
 *
 * The `licenses` group is defined in licenses.ts; command files are registered in name
 * order, so this one may run first. The two subcommands are then added to the group just
 * before commander dispatches to it, whatever the order.
 */
import type { Command } from 'commander';
import { printResult, withStore, withStoreOptions, type StoreFlags } from '../lib/store.ts';

function addKeyCommands(licenses: Command): void {
  if (licenses.commands.some((c) => c.name() === 'issue-key')) return;
  withStoreOptions(
    licenses
      .command('issue-key')
      .description('issue a feature license key (X-License-Key) for a service')
      .requiredOption('--service <id>', 'service the key is for (llm)')
      .requiredOption('--features <list>', 'comma-separated features, e.g. quantum_rerank,lora_training')
      .option('--account <id>', 'limit the key to this account (default: any account)')
      .option('--expires-at <time>', 'ISO 8601 expiry (default: none)')
      .option('--json', 'print one JSON object'),
  ).action(async (o: StoreFlags & { service: string; features: string; account?: string; expiresAt?: string; json?: boolean }) => {
    const expiresAt = o.expiresAt === undefined ? null : new Date(o.expiresAt);
    if (expiresAt && Number.isNaN(expiresAt.getTime())) throw new Error(`--expires-at is not a date: ${o.expiresAt}`);
    const [{ issueFeatureKey }, { getAccount }, { services }] = await Promise.all([
      import('../../platform/licenses/feature-keys.ts'),
      import('../../platform/identity/accounts.ts'),
      import('../../services/index.ts'),
    ]);
    if (!services.some((s) => s.id === o.service)) throw new Error(`unknown service '${o.service}'`);
    const issued = await withStore(o, async (s) => {
      if (o.account && !(await getAccount(s.db, o.account))) throw new Error(`account not found: ${o.account}`);
      return issueFeatureKey(s.db, { service: o.service, features: o.features.split(','), accountId: o.account ?? null, expiresAt });
    });
    printResult({ license_key: issued.license_key, features: issued.features, expires_at: issued.expires_at }, o.json);
  });
  withStoreOptions(
    licenses
      .command('revoke-key')
      .description('revoke a feature license key; it stops working on the next request')
      .requiredOption('--key <key>', 'the LQK-XXXX-XXXX-XXXX key')
      .option('--json', 'print one JSON object'),
  ).action(async (o: StoreFlags & { key: string; json?: boolean }) => {
    const { revokeFeatureKey } = await import('../../platform/licenses/feature-keys.ts');
    const found = await withStore(o, (s) => revokeFeatureKey(s.db, o.key));
    if (!found) throw new Error(`license key not found: ${o.key}`);
    printResult({ license_key: o.key.trim(), revoked: true }, o.json);
  });
}

export function register(program: Command): void {
  const existing = program.commands.find((c) => c.name() === 'licenses');
  if (existing) {
    addKeyCommands(existing);
    return;
  }
  program.hook('preSubcommand', (_program, sub) => {
    if (sub.name() === 'licenses') addKeyCommands(sub);
  });
}
