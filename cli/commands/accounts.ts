/** Operator commands for identity: accounts, keys and console users (credits: credits.ts). */
import type { Command } from 'commander';
import type { getAccount } from '../../platform/identity/accounts.ts';
import { checkEmail, checkScopes, futureDate } from '../lib/checks.ts';
import { printResult, withStore, withStoreOptions, type StoreFlags } from '../lib/store.ts';

const identity = () => import('../../platform/identity/accounts.ts');

interface Json extends StoreFlags {
  json?: boolean;
}

function requireAccount(account: Awaited<ReturnType<typeof getAccount>>, id: string) {
  if (!account) throw new Error(`account not found: ${id}`);
  return account;
}

export function register(program: Command): void {
  const accounts = program.command('accounts').description('manage accounts');
  withStoreOptions(
    accounts
      .command('create')
      .requiredOption('--email <email>', 'contact email (unique)')
      .option('--name <name>', 'display name')
      .option('--company <company>', 'company name')
      .option('--json', 'print one JSON object'),
  ).action(async (o: { email: string; name?: string; company?: string } & Json) => {
    const email = checkEmail('--email', o.email);
    const { createAccount } = await identity();
    const account = await withStore(o, (s) => createAccount(s.db, { email, name: o.name, companyName: o.company }));
    printResult({ account_id: account.id, email: account.email, name: account.name, company_name: account.company_name }, o.json);
  });

  const keys = program.command('keys').description('manage API keys and service tokens');
  withStoreOptions(
    keys
      .command('create')
      .requiredOption('--service <id>', 'service id, e.g. licensing')
      .option('--account <id>', 'account id (a new account is created when omitted)')
      .option('--plan <plan>', "plan for the account on this service (default: the service's lowest)")
      .option('--role <role>', "member or admin, or one of the service's own roles (runtime: viewer, developer, admin)")
      .option('--scopes <list>', "comma-separated scopes the service knows (llm-gateway: chat:write, models:read); default: the service's defaults")
      .option('--expires-at <time>', 'ISO 8601 expiry')
      .option('--kind <kind>', 'api-key or service-token', 'api-key')
      .option('--name <name>', 'label for the key')
      .option('--json', 'print one JSON object'),
  ).action(
    async (
      o: { service: string; account?: string; plan?: string; role?: string; scopes?: string; expiresAt?: string; kind: string; name?: string } & Json,
    ) => {
      const [{ serviceById }, { findPlan }, { createAccount, getAccount, setPlan }, { createKey }] = await Promise.all([
        import('../../services/index.ts'),
        import('../../platform/service.ts'),
        identity(),
        import('../../platform/identity/keys.ts'),
      ]);
      const service = serviceById(o.service);
      const roles = service.roles ?? ['member', 'admin'];
      const role = o.role ?? roles[0]!;
      if (!roles.includes(role)) throw new Error(`--role must be one of ${roles.join(', ')} for ${service.id}, got '${role}'`);
      if (o.kind !== 'api-key' && o.kind !== 'service-token') throw new Error(`--kind must be api-key or service-token, got '${o.kind}'`);
      if (o.kind === 'service-token' && !service.serviceTokenPrefix) throw new Error(`service ${service.id} has no service tokens`);
      const plan = o.plan === undefined ? null : findPlan(service, o.plan);
      if (o.plan !== undefined && !plan) {
        throw new Error(`unknown plan '${o.plan}' for ${service.id} (plans: ${service.plans.map((p) => p.name).join(', ')})`);
      }
      const expiresAt = futureDate('--expires-at', o.expiresAt);
      const scopes = checkScopes(o.scopes, service);
      const result = await withStore(o, (s) =>
        s.db.transaction(async (tx) => {
          const accountId = o.account
            ? requireAccount(await getAccount(tx, o.account), o.account).id
            : (await createAccount(tx, { email: `${service.id}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@accounts.lattice.local` })).id;
          const [existing] = await tx.query<{ plan: string }>('SELECT plan FROM account_plans WHERE account_id = $1 AND service = $2', [
            accountId,
            service.id,
          ]);
          const effectivePlan = plan ?? existing?.plan ?? service.plans[0]!.name;
          await setPlan(tx, accountId, service.id, effectivePlan);
          const kind = o.kind === 'service-token' ? 'service_token' : 'api_key';
          const key = await createKey(tx, {
            accountId,
            service: service.id,
            prefix: kind === 'service_token' ? service.serviceTokenPrefix! : service.keyPrefix,
            kind,
            role,
            scopes,
            expiresAt,
            name: o.name ?? null,
          });
          return { id: key.id, key: key.key, account_id: accountId, service: service.id, plan: effectivePlan, kind, role: key.role, scopes: key.scopes, expires_at: key.expires_at };
        }),
      );
      if (o.json) {
        printResult({ ...result, key_shown_once: true }, true);
        return;
      }
      const { key, ...rest } = result;
      process.stdout.write(`key: ${key}  (shown once: store it now, only its hash is kept)\n`);
      printResult(rest, false);
    },
  );
  withStoreOptions(keys.command('revoke').requiredOption('--id <id>', 'key id (key_...)').option('--json', 'print one JSON object')).action(
    async (o: { id: string } & Json) => {
      const { revokeKey } = await import('../../platform/identity/keys.ts');
      await withStore(o, (s) => revokeKey(s.db, o.id));
      printResult({ id: o.id, revoked: true }, o.json);
    },
  );

  const consoleUsers = program.command('console-users').description('users of the gateway console');
  withStoreOptions(
    consoleUsers
      .command('create')
      .requiredOption('--email <email>', 'login email')
      .requiredOption('--password <password>', 'password (at least 8 characters)')
      .option('--account <id>', 'account id (a new account is created when omitted)')
      .option('--json', 'print one JSON object'),
  ).action(async (o: { email: string; password: string; account?: string } & Json) => {
    const email = checkEmail('--email', o.email);
    const [{ createAccount, getAccount }, { createConsoleUser }] = await Promise.all([identity(), import('../../platform/identity/console-users.ts')]);
    const result = await withStore(o, (s) =>
      s.db.transaction(async (tx) => {
        const accountId = o.account
          ? requireAccount(await getAccount(tx, o.account), o.account).id
          : (await createAccount(tx, { email })).id;
        return createConsoleUser(tx, { accountId, email, password: o.password });
      }),
    );
    printResult(result, o.json);
  });
}
