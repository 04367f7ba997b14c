/**
 * Configuration: a JSON file (`lattice.config.json` in the working directory, or
 * `--config`), then environment variables, then command-line flags, each overriding the last.
 * Every value is checked at start; a bad one stops the start with a message naming it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface ServiceConfig {
  port: number;
  prefix: string;
}

export interface LatticeConfig {
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  services: Record<string, ServiceConfig>;
  /** Service ids to start; null means all. */
  only: string[] | null;
  logLevel: string;
  /**
   * Seconds a stopping process keeps answering, with `/ready` at 503 `draining`, before it
   * closes its ports (LATTICE_DRAIN_SECONDS, default 5); only when `/ready` has been polled.
   */
  drainSeconds: number;
  /**
   * PostgreSQL's shared_buffers for the embedded store (LATTICE_EMBEDDED_SHARED_BUFFERS); null:
   * the store's default (platform/storage/database.ts, 32MB).
   */
  embeddedSharedBuffers: string | null;
}

export interface ConfigSources {
  file?: string;
  env?: NodeJS.ProcessEnv;
  flags?: { dataDir?: string; only?: string; host?: string; databaseUrl?: string };
  defaults: Record<string, number>;
}

export class ConfigError extends Error {}

function checkPort(name: string, value: unknown): number {
  const port = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`${name} must be a port number from 0 to 65535, got ${JSON.stringify(value)}`);
  }
  return port;
}

function checkPrefix(name: string, value: unknown): string {
  if (typeof value !== 'string' || !/^(\/[A-Za-z0-9._~-]+)*$/.test(value)) {
    throw new ConfigError(`${name} must be '' or a path like /licensing, got ${JSON.stringify(value)}`);
  }
  return value;
}

function checkSharedBuffers(value: unknown): string {
  const text = String(value);
  const m = /^(\d+)(kB|MB|GB)$/.exec(text);
  const kb = m ? Number(m[1]) * (m[2] === 'kB' ? 1 : m[2] === 'MB' ? 1024 : 1024 * 1024) : NaN;
  if (!(kb >= 128 && kb <= 4 * 1024 * 1024)) {
    throw new ConfigError(`LATTICE_EMBEDDED_SHARED_BUFFERS must be a size from 128kB to 4GB such as 32MB, got ${JSON.stringify(value)}`);
  }
  return text;
}

function checkDrain(value: unknown): number {
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0 || seconds > 600) {
    throw new ConfigError(`LATTICE_DRAIN_SECONDS must be a number of seconds from 0 to 600, got ${JSON.stringify(value)}`);
  }
  return seconds;
}

const envName = (id: string) => id.toUpperCase().replaceAll('-', '_');

export function loadConfig(sources: ConfigSources): LatticeConfig {
  const env = sources.env ?? process.env;
  const filePath = sources.file ?? (existsSync('lattice.config.json') ? 'lattice.config.json' : null);
  let file: Record<string, unknown> = {};
  if (filePath) {
    try {
      file = JSON.parse(readFileSync(filePath, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(`cannot read config file ${filePath}: ${(err as Error).message}`);
    }
  }
  const fileServices = (file.services ?? {}) as Record<string, Partial<ServiceConfig>>;
  const services: Record<string, ServiceConfig> = {};
  for (const [id, defaultPort] of Object.entries(sources.defaults)) {
    const fromFile = fileServices[id] ?? {};
    const portEnv = env[`LATTICE_${envName(id)}_PORT`];
    const prefixEnv = env[`LATTICE_${envName(id)}_PREFIX`];
    services[id] = {
      port: checkPort(portEnv !== undefined ? `LATTICE_${envName(id)}_PORT` : `services.${id}.port`, portEnv ?? fromFile.port ?? defaultPort),
      prefix: checkPrefix(
        prefixEnv !== undefined ? `LATTICE_${envName(id)}_PREFIX` : `services.${id}.prefix`,
        prefixEnv ?? fromFile.prefix ?? '',
      ),
    };
  }
  for (const id of Object.keys(fileServices)) {
    if (!(id in sources.defaults)) throw new ConfigError(`services.${id}: unknown service id`);
  }

  const onlyText = sources.flags?.only ?? env.LATTICE_ONLY ?? (file.only as string | undefined);
  let only: string[] | null = null;
  if (onlyText) {
    only = String(onlyText)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const id of only) {
      if (!(id in sources.defaults)) {
        throw new ConfigError(`--only: unknown service id '${id}' (known: ${Object.keys(sources.defaults).join(', ')})`);
      }
    }
  }
  const databaseUrl = sources.flags?.databaseUrl ?? (env.DATABASE_URL || null) ?? (file.databaseUrl as string | undefined) ?? null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const sharedBuffers = env.LATTICE_EMBEDDED_SHARED_BUFFERS ?? (file.embeddedSharedBuffers as unknown);
  return {
    host: sources.flags?.host ?? env.LATTICE_HOST ?? (file.host as string | undefined) ?? '127.0.0.1',
    dataDir: resolve(sources.flags?.dataDir ?? env.LATTICE_DATA_DIR ?? (file.dataDir as string | undefined) ?? 'data'),
    databaseUrl,
    services,
    only,
    logLevel: env.LATTICE_LOG_LEVEL ?? (file.logLevel as string | undefined) ?? 'warn',
    drainSeconds: checkDrain(env.LATTICE_DRAIN_SECONDS ?? (file.drainSeconds as unknown) ?? 5),
    embeddedSharedBuffers: sharedBuffers === undefined ? null : checkSharedBuffers(sharedBuffers),
  };
}
