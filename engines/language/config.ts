/**
 * Which backend serves which model id. Read from a JSON file named by LATTICE_MODELS (or
 * passed in), validated up front so that a bad entry stops with a message that names it.
 * Without configuration the built-in model, the classic embedding and the rerank tiers are
 * available, so everything works with no network.
 *
 * @example LATTICE_MODELS=models.json with
 * {"models":[{"id":"qwen-0.5b","provider":"local","path":"/models/qwen2.5-0.5b-instruct-q4_k_m.gguf"},
 *            {"id":"gpt-4o-mini","provider":"openai","base_url":"https://api.example.com/v1","api_key_env":"OPENAI_API_KEY"}]}
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LanguageError } from './errors.ts';

export type ProviderKind = 'local' | 'openai' | 'rerank-http' | 'classic';
export type Capability = 'chat' | 'embed' | 'rerank';

export interface ModelConfig {
  id: string;
  provider: ProviderKind;
  /** local: the GGUF file. */
  path?: string;
  /** local: context size in tokens (default: the model's own, capped at 4096). */
  context_size?: number;
  /** local: CPU threads (default: all cores). */
  threads?: number;
  /** openai / rerank-http: the server's base URL (…/v1 for OpenAI-compatible servers). */
  base_url?: string;
  /** openai / rerank-http: name of the environment variable holding the API key. */
  api_key_env?: string;
  /** The upstream's own id for this model, when it differs. */
  upstream_model?: string;
  timeout_ms?: number;
  retries?: number;
  /** rerank-http: request shape. */
  style?: 'cohere' | 'tei';
  capabilities?: Capability[];
}

export interface LanguageConfig {
  models: ModelConfig[];
  default_chat_model: string;
  default_embedding_model: string;
}

export const BUILTIN_MODEL_ID = 'lattice-tiny';
export const BUILTIN_MODEL_PATH = fileURLToPath(new URL('./models/lattice-tiny.gguf', import.meta.url));

export const BUILTIN_MODELS: ModelConfig[] = [
  // One thread: the built-in model is so small that a second llama.cpp worker only adds
  // synchronisation (measured 108 vs 6 generated tokens/s on a busy two-core machine).
  { id: BUILTIN_MODEL_ID, provider: 'local', path: BUILTIN_MODEL_PATH, threads: 1, capabilities: ['chat', 'embed'] },
  { id: 'classic-embed', provider: 'classic', capabilities: ['embed'] },
  { id: 'classic', provider: 'classic', capabilities: ['rerank'] },
];

const KINDS = new Set<ProviderKind>(['local', 'openai', 'rerank-http', 'classic']);
const CAPS = new Set<Capability>(['chat', 'embed', 'rerank']);

function configError(msg: string): LanguageError {
  return new LanguageError('invalid_request', `model configuration: ${msg}`);
}

export function defaultCapabilities(kind: ProviderKind): Capability[] {
  if (kind === 'local') return ['chat', 'embed'];
  if (kind === 'openai') return ['chat', 'embed'];
  return ['rerank'];
}

export function parseConfig(raw: unknown): LanguageConfig {
  const obj = (raw ?? {}) as { models?: unknown; default_chat_model?: unknown; default_embedding_model?: unknown };
  if (obj.models !== undefined && !Array.isArray(obj.models)) throw configError('"models" must be a list');
  const models: ModelConfig[] = [...BUILTIN_MODELS];
  ((obj.models as unknown[] | undefined) ?? []).forEach((m, i) => {
    const e = m as Partial<ModelConfig>;
    const where = `models[${i}]`;
    if (!e || typeof e.id !== 'string' || e.id === '') throw configError(`${where}.id must be a non-empty string`);
    if (!e.provider || !KINDS.has(e.provider)) throw configError(`${where}.provider must be one of ${[...KINDS].join(', ')}`);
    if (e.provider === 'local' && typeof e.path !== 'string') throw configError(`${where} (local) needs "path" to a GGUF file`);
    if ((e.provider === 'openai' || e.provider === 'rerank-http') && typeof e.base_url !== 'string') throw configError(`${where} (${e.provider}) needs "base_url"`);
    if (e.base_url !== undefined) {
      try {
        new URL(e.base_url);
      } catch {
        throw configError(`${where}.base_url is not a URL: ${e.base_url}`);
      }
    }
    if (e.capabilities !== undefined && (!Array.isArray(e.capabilities) || e.capabilities.some((c) => !CAPS.has(c)))) throw configError(`${where}.capabilities must list chat, embed or rerank`);
    for (const k of ['context_size', 'threads', 'timeout_ms', 'retries'] as const) {
      const v = e[k];
      if (v !== undefined && !(Number.isInteger(v) && v >= 0)) throw configError(`${where}.${k} must be a non-negative integer`);
    }
    const at = models.findIndex((x) => x.id === e.id);
    if (at >= 0) models.splice(at, 1);
    models.push(e as ModelConfig);
  });
  const chat = typeof obj.default_chat_model === 'string' ? obj.default_chat_model : BUILTIN_MODEL_ID;
  const embed = typeof obj.default_embedding_model === 'string' ? obj.default_embedding_model : 'classic-embed';
  for (const id of [chat, embed]) if (!models.some((m) => m.id === id)) throw configError(`default model "${id}" is not configured`);
  return { models, default_chat_model: chat, default_embedding_model: embed };
}

/** The configuration from the file named by LATTICE_MODELS, or the built-in one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): LanguageConfig {
  const file = env.LATTICE_MODELS;
  if (!file) return parseConfig({});
  if (!existsSync(file)) throw configError(`LATTICE_MODELS names ${file}, which does not exist`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw configError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  return parseConfig(raw);
}
