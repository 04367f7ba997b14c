/** `lattice licenses issue` (variant A artifacts) and `lattice keys rotate-signing`. */
import type { Command } from 'commander';
import type { KeyPurpose } from '../../services/licensing/signing-keys.ts';
import { printResult, withStore, withStoreOptions, type StoreFlags } from '../lib/store.ts';

function parseDate(flag: string, value: string | undefined): Date | null {
  if (value === undefined) return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new Error(`${flag} is not a date: ${value}`);
  return d;
}

export function register(program: Command): void {
  const licenses = program.command('licenses').description('license artifacts (licensing variant A)');
  withStoreOptions(
    licenses
      .command('issue')
      .requiredOption('--account <id>', 'account the license belongs to')
      .requiredOption('--entitlements <list>', 'comma-separated <category>:<name> entitlements')
      .option('--expires-at <time>', 'ISO 8601 expiry (default: one year)')
      .option('--not-before <time>', 'ISO 8601 start (default: now)')
      .option('--grace-days <n>', 'grace period after expiry, in days', '0')
      .option('--fingerprint <json>', 'device fingerprint to bind to, as a JSON object of strings')
      .option('--hybrid', 'also sign with RSA-PSS-SHA256')
      .option('--json', 'print one JSON object'),
  ).action(
    async (o: StoreFlags & {
      account: string;
      entitlements: string;
      expiresAt?: string;
      notBefore?: string;
      graceDays: string;
      fingerprint?: string;
      hybrid?: boolean;
      json?: boolean;
    }) => {
      const graceDays = Number(o.graceDays);
      if (!Number.isInteger(graceDays) || graceDays < 0 || graceDays > 365) throw new Error('--grace-days must be an integer from 0 to 365');
      let fingerprint: Record<string, string> | null = null;
      if (o.fingerprint) {
        const parsed: unknown = JSON.parse(o.fingerprint);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((v) => typeof v === 'string')) {
          throw new Error('--fingerprint must be a JSON object of string values');
        }
        fingerprint = parsed as Record<string, string>;
      }
      const [{ getAccount }, { issueLicense }, { SigningKeys }] = await Promise.all([
        import('../../platform/identity/accounts.ts'),
        import('../../services/licensing/artifacts/issue.ts'),
        import('../../services/licensing/signing-keys.ts'),
      ]);
      const issued = await withStore(o, async (s) => {
        if (!(await getAccount(s.db, o.account))) throw new Error(`account not found: ${o.account}`);
        return issueLicense(
          s.db,
          new SigningKeys(s.db),
          {
            accountId: o.account,
            entitlements: o.entitlements.split(',').map((e) => e.trim()).filter(Boolean),
            expiresAt: parseDate('--expires-at', o.expiresAt),
            notBefore: parseDate('--not-before', o.notBefore),
            graceDays,
            fingerprint,
            hybrid: Boolean(o.hybrid),
          },
          new Date(),
        );
      });
      printResult({ license_id: issued.license_id, artifact_compact: issued.artifact_compact, artifact_json: issued.artifact_json }, o.json);
    },
  );

  const keys = program.commands.find((c) => c.name() === 'keys') ?? program.command('keys');
  withStoreOptions(
    keys
      .command('rotate-signing')
      .description('retire the active licensing signing key and create a new one (old signatures stay valid)')
      .option('--purpose <purpose>', 'artifact or kms', 'artifact')
      .option('--algorithm <alg>', 'ML-DSA-65, ML-DSA-87, ED25519 or RSA-PSS-SHA256', 'ML-DSA-65')
      .option('--name <name>', 'key name (KMS keys)', 'default')
      .option('--json', 'print one JSON object'),
  ).action(async (o: StoreFlags & { purpose: string; algorithm: string; name: string; json?: boolean }) => {
    if (o.purpose !== 'artifact' && o.purpose !== 'kms') throw new Error('--purpose must be artifact or kms');
    const [{ isAlgorithm }, { SigningKeys }] = await Promise.all([import('../../engines/crypto/index.ts'), import('../../services/licensing/signing-keys.ts')]);
    if (!isAlgorithm(o.algorithm)) throw new Error(`unknown algorithm '${o.algorithm}'`);
    const algorithm = o.algorithm;
    const key = await withStore(o, (s) => new SigningKeys(s.db).rotate(o.purpose as KeyPurpose, algorithm, o.name));
    printResult({ key_id: key.key_id, algorithm: key.algorithm, purpose: key.purpose, status: key.status }, o.json);
  });
}
