/**
 * `lattice evidence verify|keys|export`: evidence bundles offline. `verify` checks a bundle
 * (JSON or CBOR, of any kind) against a saved public-keys document (`--keys`) or, without
 * one, against every key published in the local store; it exits 1 when the bundle is invalid.
 */
import { readFileSync, writeFileSync } from 'node:fs';
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

/** `--hash-input NAME=FILE`: the data behind a pinned hash (e.g. circuit_hash=bell.qasm). */
function collectHashInput(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new Error(`--hash-input must be NAME=FILE, got '${value}'`);
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

export function register(program: Command): void {
  const cmd = program.command('evidence').description('evidence bundles: verify offline, publish keys, export');

  withStoreOptions(
    cmd
      .command('verify')
      .argument('<file>', 'the bundle, as JSON or CBOR')
      .option('--keys <file>', 'a saved public-keys document (GET <evidence path>/keys); default: the keys published in the local store')
      .option('--kind <kind>', 'core, nav, platform or runtime (default: told from the fields)')
      .option('--hash-input <name=file>', 'data behind a pinned hash, e.g. circuit_hash=bell.qasm (repeatable)', collectHashInput)
      .option('--json', 'print one JSON object'),
  ).action(async (file: string, o: StoreFlags & { keys?: string; kind?: string; hashInput?: Record<string, string>; json?: boolean }) => {
    const { verifyBundle, allPublishedKeys, isEvidenceKind } = await evidence();
    if (o.kind !== undefined && !isEvidenceKind(o.kind)) throw new Error(`--kind must be core, nav, platform or runtime, got '${o.kind}'`);
    const bundle = await readBundle(file);
    const hashInputs = Object.fromEntries(Object.entries(o.hashInput ?? {}).map(([name, path]) => [name, readFileSync(path)]));
    const keys = o.keys ? readKeys(o.keys) : (await withStore(o, (s) => allPublishedKeys(s.db))).keys;
    const result = await verifyBundle(bundle, { keys, kind: o.kind as EvidenceKind | undefined, hashInputs });
    printResult({ valid: result.valid, kind: result.kind, key_id: result.key_id, checks: result.checks }, o.json);
    if (!result.valid) process.exitCode = 1;
  });

  withStoreOptions(
    cmd
      .command('keys')
      .requiredOption('--service <service>', 'core, platform, runtime or nav')
      .option('--rotate', 'retire the active ML-DSA-65 key and make a new one (the old one keeps verifying)')
      .option('--json', 'print one JSON object'),
  ).action(async (o: StoreFlags & { service: string; rotate?: boolean; json?: boolean }) => {
    const { EvidenceKeys } = await evidence();
    const doc = await withStore(o, async (s) => {
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
