/**
 * Supplier credentials and endpoints, read from the environment once at start. A supplier
 * with credentials speaks its real API; without them it is emulated on the catalog's devices
 * (unless LATTICE_SUPPLIERS_EMULATION=off, which leaves it unconfigured). A malformed value
 * stops the start with a message that names the variable.
 */
export type SupplierId = 'supplier_a_quantum' | 'supplier_b_quantum' | 'supplier_c' | 'hpc_gpu';
export const SUPPLIER_IDS: readonly SupplierId[] = ['hpc_gpu', 'supplier_b_quantum', 'supplier_a_quantum', 'supplier_c'];
export const CLOUD_SUPPLIERS: readonly Exclude<SupplierId, 'hpc_gpu'>[] = ['supplier_a_quantum', 'supplier_b_quantum', 'supplier_c'];

export interface SupplierAConfig { token: string; url: string }
export interface SupplierBConfig {
  /** A bearer token used as is, or null when one is made from `apiKey`. */
  token: string | null;
  /** An API key exchanged for an hour-long bearer token at `iamUrl`. */
  apiKey?: string | null;
  iamUrl?: string;
  url: string;
  instance: string | null;
}
export interface SupplierCConfig {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string | null;
  region: string;
  url: string;
  /** Base of the object store holding task results; `{bucket}` is replaced by the bucket name. */
  storageUrl: string;
}

export interface SuppliersConfig {
  emulation: boolean;
  a: SupplierAConfig | null;
  b: SupplierBConfig | null;
  c: SupplierCConfig | null;
  /** How often active remote jobs are polled for webhooks and settlement (ms). */
  pollIntervalMs: number;
}

function url(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = (env[name] ?? fallback).replace(/\/+$/, '');
  try {
    const u = new URL(value.replace('{bucket}', 'bucket'));
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new Error(`${name} must be an http(s) URL; got '${env[name]}'`);
  }
  return value;
}

function text(env: NodeJS.ProcessEnv, name: string): string | null {
  const v = env[name]?.trim();
  return v ? v : null;
}

export function loadSuppliersConfig(env: NodeJS.ProcessEnv = process.env): SuppliersConfig {
  const emulationRaw = (env.LATTICE_SUPPLIERS_EMULATION ?? 'on').toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0'].includes(emulationRaw)) {
    throw new Error(`LATTICE_SUPPLIERS_EMULATION must be on or off; got '${env.LATTICE_SUPPLIERS_EMULATION}'`);
  }
  const poll = Number(env.LATTICE_SUPPLIERS_POLL_MS ?? 5000);
  if (!Number.isInteger(poll) || poll < 100) throw new Error(`LATTICE_SUPPLIERS_POLL_MS must be an integer of at least 100; got '${env.LATTICE_SUPPLIERS_POLL_MS}'`);

  const aToken = text(env, 'LATTICE_SUPPLIER_A_TOKEN');
  const bToken = text(env, 'LATTICE_SUPPLIER_B_TOKEN');
  const bKey = text(env, 'LATTICE_SUPPLIER_B_API_KEY');
  const cKey = text(env, 'LATTICE_SUPPLIER_C_ACCESS_KEY_ID');
  const cSecret = text(env, 'LATTICE_SUPPLIER_C_SECRET_ACCESS_KEY');
  if (Boolean(cKey) !== Boolean(cSecret)) {
    throw new Error('LATTICE_SUPPLIER_C_ACCESS_KEY_ID and LATTICE_SUPPLIER_C_SECRET_ACCESS_KEY must be set together');
  }
  const region = text(env, 'LATTICE_SUPPLIER_C_REGION') ?? 'us-east-1';
  if (!/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) throw new Error(`LATTICE_SUPPLIER_C_REGION is not a region name; got '${region}'`);
  return {
    emulation: ['on', 'true', '1'].includes(emulationRaw),
    a: aToken ? { token: aToken, url: url(env, 'LATTICE_SUPPLIER_A_URL', 'https://arnica.aqt.eu/api/v1') } : null,
    b: bToken || bKey
      ? {
          token: bToken, apiKey: bKey, iamUrl: url(env, 'LATTICE_SUPPLIER_B_IAM_URL', 'https://iam.cloud.ibm.com/identity/token'),
          url: url(env, 'LATTICE_SUPPLIER_B_URL', 'https://quantum.cloud.ibm.com/api/v1'), instance: text(env, 'LATTICE_SUPPLIER_B_INSTANCE'),
        }
      : null,
    c: cKey && cSecret
      ? {
          accessKeyId: cKey,
          secretAccessKey: cSecret,
          sessionToken: text(env, 'LATTICE_SUPPLIER_C_SESSION_TOKEN'),
          region,
          url: url(env, 'LATTICE_SUPPLIER_C_URL', `https://braket.${region}.amazonaws.com`),
          storageUrl: url(env, 'LATTICE_SUPPLIER_C_STORAGE_URL', `https://{bucket}.s3.${region}.amazonaws.com`),
        }
      : null,
    pollIntervalMs: poll,
  };
}
