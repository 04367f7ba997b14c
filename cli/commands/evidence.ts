/**
 * `lattice evidence verify|keys|export`: evidence bundles offline. `verify` checks a bundle
 * (JSON or CBOR, of any kind) against a saved public-keys document (`--keys`) or the keys
 * published in an existing store (`--data-dir`, `--database-url`); it never creates a store,
 * and without a key source it stops with a usage error naming where keys come from. Exit
 * codes: 0 valid, 1 a check failed (invalid), 2 usage, 3 not checked (the signing key is not
 * among the keys given: nothing says the bundle is forged, only that it was not checked).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { EvidenceKind, PublicKeyInfo } from '../../platform/evidence/index.ts';
import { printResult, withStore, withStoreOptions, type StoreFlags } from '../lib/store.ts';

const evidence = () => import('../../platform/evidence/index.ts');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A bundle from a file: JSON, or CBOR when the file does not start with JSON. A `{success, data}` response envelope is unwrapped. */
async function readBundle(file: string): Promise<Record<string, unknown>> {
  const bytes = readFileSync(file);
  const text = bytes.toString('utf8').trimStart();
  let value: unknown;
  if (text.startsWith('{')) {
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new Error(`${file} is not valid JSON: ${(err as Error).message}`);
    }
  } else {
    const { decodeBundleCbor } = await evidence();
    try {
      value = await decodeBundleCbor(bytes);
    } catch (err) {
      throw new Error(`${file} is neither JSON nor a CBOR map: ${(err as Error).message}`);
    }
  }
  if (!isObject(value)) throw new Error(`${file} does not hold a JSON object`);
  const { detectProfile } = await evidence();
  if (!detectProfile(value) && value.success === true && isObject(value.data)) return value.data;
  return value;
}

/** Keys from a saved document: `{keys: [...]}`, a `{success, data: {keys}}` response, or a list of either. */
function readKeys(file: string): PublicKeyInfo[] {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`--keys ${file}: ${(err as Error).message}`);
  }
  const out: PublicKeyInfo[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (isObject(v) && Array.isArray(v.keys)) v.keys.forEach(visit);
    else if (isObject(v) && isObject(v.data)) visit(v.data);
    else if (isObject(v) && typeof v.key_id === 'string' && typeof v.public_key === 'string') out.push(v as unknown as PublicKeyInfo);
  };
  visit(value);
  if (out.length === 0) throw new Error(`--keys ${file} holds no public keys (expected {keys: [{key_id, algorithm, public_key, ...}]})`);
  return out;
}

/** Where each service publishes its evidence keys (GET, no key needed), for the messages that point there. */
const KEY_ROUTES = 'core GET {core_url}/api/v2/evidence/keys, platform GET {platform_url}/api/v1/platform/evidence/keys, ' +
  'runtime GET {runtime_url}/api/v1/runtime/evidence/keys, nav GET {nav_url}/evidence/keys';

export const EXIT_INVALID = 1;
export const EXIT_USAGE = 2;
export const EXIT_NOT_CHECKED = 3;

/** A usage error through the command, so it is printed (or put in the --json error object) like commander's own. */
function usage(cmd: Command, message: string): never {
  cmd.error(`error: ${message}`, { exitCode: EXIT_USAGE, code: 'lattice.usage' });
}

/**
 * Opens only a store that is already there: a command that reads must never leave a new,
 * empty store behind (which then publishes no keys and makes every bundle look forged).
 */
function requireExistingStore(cmd: Command, o: StoreFlags): void {
  // A server (named, or $DATABASE_URL without a --data-dir) holds its own store: nothing is created here.
  if (o.databaseUrl || (!o.dataDir && process.env.DATABASE_URL)) return;
  const dir = o.dataDir ?? 'data';
  if (!existsSync(join(dir, 'pgdata'))) {
    usage(cmd, `no Lattice store in ${dir} (${join(dir, 'pgdata')} does not exist); name the data dir of a store with --data-dir DIR, a server with --database-url URL, or use --keys FILE`);
  }
}

/** `--hash-input NAME=FILE`: the data behind a pinned hash (e.g. circuit_hash=bell.qasm). */
function collectHashInput(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new Error(`--hash-input must be NAME=FILE, got '${value}'`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

export function register(program: Command): void {
  const cmd = program.command('evidence').description('evidence bundles: verify offline, publish keys, export');

  const verify: Command = withStoreOptions(
    cmd
      .command('verify')
      .argument('<file>', 'the bundle, as JSON or CBOR')
      .option('--keys <file>', 'a saved public-keys document (GET <evidence path>/keys of the issuing service); or give --data-dir / --database-url to read the keys of an existing store')
      .option('--kind <kind>', 'core, nav, platform or runtime (default: told from the fields)')
      .option('--hash-input <name=file>', 'data behind a pinned hash, e.g. circuit_hash=bell.qasm (repeatable)', collectHashInput)
      .option('--json', 'print one JSON object'),
  );
  verify.action(async (file: string, o: StoreFlags & { keys?: string; kind?: string; hashInput?: Record<string, string>; json?: boolean }) => {
    const { verifyBundle, allPublishedKeys, isEvidenceKind } = await evidence();
    if (o.kind !== undefined && !isEvidenceKind(o.kind)) usage(verify, `--kind must be core, nav, platform or runtime, got '${o.kind}'`);
    if (!o.keys && !o.dataDir && !o.databaseUrl) {
      usage(
        verify,
        'verify needs the public keys to check the signature against: save the keys of the service that issued the bundle ' +
          `(${KEY_ROUTES}) and pass --keys FILE, or read the keys of a local store with --data-dir DIR (or --database-url URL)`,
      );
    }
    const bundle = await readBundle(file);
    const hashInputs = Object.fromEntries(Object.entries(o.hashInput ?? {}).map(([name, path]) => [name, readFileSync(path)]));
    let keys: PublicKeyInfo[];
    let source: string;
    if (o.keys) {
      keys = readKeys(o.keys);
      source = `--keys ${o.keys}`;
    } else {
      requireExistingStore(verify, o);
      keys = (await withStore(o, (s) => allPublishedKeys(s.db))).keys;
      source = o.databaseUrl ? 'the store of --database-url' : `the store in ${o.dataDir}`;
    }
    const result = await verifyBundle(bundle, { keys, kind: o.kind as EvidenceKind | undefined, hashInputs });
    const checks: Record<string, { verdict: string; reason?: string }> = { ...result.checks };
    // A key the caller did not supply leaves the signature unchecked, which is not a forgery.
    const unchecked = result.key_id !== null && !keys.some((k) => k.key_id === result.key_id);
    if (unchecked) {
      checks.signature = {
        verdict: 'not_checked',
        reason: `the signing key ${result.key_id} is not among the keys of ${source}; get the keys of the service that issued the bundle (${KEY_ROUTES}) and pass them with --keys FILE`,
      };
    }
    const invalid = Object.values(checks).some((c) => c.verdict === 'invalid');
    const valid = invalid ? false : unchecked ? null : true;
    printResult({ valid, kind: result.kind, key_id: result.key_id, checks }, o.json);
    process.exitCode = invalid ? EXIT_INVALID : unchecked ? EXIT_NOT_CHECKED : 0;
  });

  const keysCmd: Command = withStoreOptions(
    cmd
      .command('keys')
      .description('the evidence public keys published in a store: one service\'s (--service), or every service\'s')
      .option('--service <service>', 'core, platform, runtime or nav (default: the keys of every service; required with --rotate)')
      .option('--rotate', 'retire the active ML-DSA-65 key of --service and make a new one (the old one keeps verifying)')
      .option('--json', 'print one JSON object'),
  );
  keysCmd.action(async (o: StoreFlags & { service?: string; rotate?: boolean; json?: boolean }) => {
    const { EvidenceKeys, allPublishedKeys } = await evidence();
    const SERVICES = ['core', 'platform', 'runtime', 'nav'];
    if (o.service !== undefined && !SERVICES.includes(o.service)) usage(keysCmd, `--service must be one of ${SERVICES.join(', ')}, got '${o.service}'`);
    if (o.rotate && !o.service) usage(keysCmd, '--rotate needs --service: name the service whose key to rotate (core, platform, runtime or nav)');
    requireExistingStore(keysCmd, o);
    const doc = await withStore(o, async (s) => {
      if (!o.service) return allPublishedKeys(s.db);
      const keys = new EvidenceKeys(s.db, o.service);
      if (o.rotate) await keys.rotate('ML-DSA-65');
      return keys.publicKeys();
    });
    printResult({ ...doc }, o.json);
  });

  cmd
    .command('export')
    .argument('<file>', 'the bundle, as JSON or CBOR')
    .requiredOption('--format <format>', 'json, cbor or pdf')
    .requiredOption('--out <file>', 'where to write the export')
    .option('--json', 'print one JSON object')
    .action(async (file: string, o: { format: string; out: string; json?: boolean }) => {
      const { exportBundle, isExportFormat } = await evidence();
      if (!isExportFormat(o.format)) throw new Error(`--format must be json, cbor or pdf, got '${o.format}'`);
      const out = await exportBundle(await readBundle(file), o.format);
      writeFileSync(o.out, out.body);
      printResult({ file: o.out, format: out.format, content_type: out.contentType, bytes: out.body.length }, o.json);
    });
}
