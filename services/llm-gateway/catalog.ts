/**
 * The gateway's model catalog: the chat models of the language engine's configuration
 * (LATTICE_MODELS, see engines/language/README.md) that carry a price. Each entry may add,
 * beside the engine's fields:
 *   "pricing": {"input": 0.15, "output": 0.60}   US dollars per million tokens (required)
 *   "context_window": 128000                      tokens, shown by GET /models
 *   "max_output_tokens": 16384                    the worst case held when a call sends no max_tokens
 *   "owned_by": "lattice"
 *   "public": false                               listed, but refused with 403 (spec: listed ids may be unavailable)
 * The built-in model is priced here, so metering is real without any configuration.
 */
import { BUILTIN_MODEL_ID, type LanguageConfig, type ModelConfig } from '../../engines/language/config.ts';

export interface GatewayModel {
  id: string;
  ownedBy: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** Micro-dollars per token = US dollars per million tokens. */
  inputPrice: number;
  outputPrice: number;
  public: boolean;
}

interface GatewayFields {
  pricing?: { input?: unknown; output?: unknown };
  context_window?: unknown;
  max_output_tokens?: unknown;
  owned_by?: unknown;
  public?: unknown;
}

/** The built-in smoke-test model: 256-token context, priced like the catalog's compact model. */
const BUILTIN_DEFAULTS: GatewayFields = { pricing: { input: 0.1, output: 0.4 }, context_window: 256, max_output_tokens: 256, owned_by: 'lattice' };

function num(value: unknown, where: string, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`model configuration: ${where} must be a ${integer ? 'non-negative integer' : 'non-negative number'}`);
  }
  return value;
}

export interface Catalog {
  models: GatewayModel[];
  /** Chat models configured without a price: not served (a call could not be metered). */
  unpriced: string[];
  find(id: string): GatewayModel | undefined;
}

export function buildCatalog(config: LanguageConfig): Catalog {
  const models: GatewayModel[] = [];
  const unpriced: string[] = [];
  for (const m of config.models) {
    const caps = m.capabilities ?? (m.provider === 'classic' || m.provider === 'rerank-http' ? ['rerank'] : ['chat', 'embed']);
    if (!caps.includes('chat')) continue;
    const own = m as ModelConfig & GatewayFields;
    const f: GatewayFields = m.id === BUILTIN_MODEL_ID ? { ...BUILTIN_DEFAULTS, ...own, pricing: own.pricing ?? BUILTIN_DEFAULTS.pricing } : own;
    if (!f.pricing) {
      unpriced.push(m.id);
      continue;
    }
    const where = `models "${m.id}"`;
    const input = num(f.pricing.input, `${where}.pricing.input`, false);
    const output = num(f.pricing.output, `${where}.pricing.output`, false);
    if (input === undefined || output === undefined) throw new Error(`model configuration: ${where}.pricing needs "input" and "output" (US dollars per million tokens)`);
    const contextWindow = num(f.context_window, `${where}.context_window`, true) ?? m.context_size ?? 4096;
    models.push({
      id: m.id,
      ownedBy: typeof f.owned_by === 'string' ? f.owned_by : m.provider === 'openai' ? 'upstream' : 'lattice',
      contextWindow,
      maxOutputTokens: num(f.max_output_tokens, `${where}.max_output_tokens`, true) ?? Math.min(contextWindow, 4096),
      inputPrice: input,
      outputPrice: output,
      public: f.public !== false,
    });
  }
  const byId = new Map(models.map((m) => [m.id, m]));
  return { models, unpriced, find: (id) => byId.get(id) };
}
