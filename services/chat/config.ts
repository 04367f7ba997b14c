/**
 * The chat application's settings, from the environment, checked at start (a bad value stops
 * the start with a message naming it):
 *
 * - `LATTICE_CHAT_DAILY_MESSAGES` (default 1000): messages per account per UTC day.
 * - `LATTICE_CHAT_DAILY_PRO_MESSAGES` (default 500): messages per account per UTC day to the
 *   models marked pro in the catalog; they count against the first limit too.
 * - `LATTICE_CHAT_MODELS`: JSON object mapping catalog ids to platform model ids of the
 *   language engine (`{"lattice:code": "qwen-coder"}`; the platform models themselves come from
 *   `LATTICE_MODELS`, engines/language/README.md). Unmapped slots use the engine's default chat
 *   model (the built-in one unless configured).
 * - `LATTICE_CHAT_MAX_OUTPUT_TOKENS`: a cap on every reply below the slot's own maximum (for
 *   small CPU deployments and tests); none by default.
 */
import { CATALOG, findSlot } from './catalog.ts';

export interface ChatConfig {
  dailyMessages: number;
  dailyProMessages: number;
  /** Catalog id -> platform model id, for the slots mapped explicitly. */
  slotModels: Record<string, string>;
  maxOutputTokens: number | null;
}

export class ChatConfigError extends Error {}

function positiveInt(name: string, raw: string | undefined, fallback: number | null): number | null {
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new ChatConfigError(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

export function chatConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ChatConfig {
  let slotModels: Record<string, string> = {};
  const raw = env.LATTICE_CHAT_MODELS;
  if (raw && raw.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      throw new ChatConfigError(`LATTICE_CHAT_MODELS is not valid JSON: ${(err as Error).message}`);
    }
    slotModels = checkSlotModels(parsed);
  }
  return {
    dailyMessages: positiveInt('LATTICE_CHAT_DAILY_MESSAGES', env.LATTICE_CHAT_DAILY_MESSAGES, 1000)!,
    dailyProMessages: positiveInt('LATTICE_CHAT_DAILY_PRO_MESSAGES', env.LATTICE_CHAT_DAILY_PRO_MESSAGES, 500)!,
    slotModels,
    maxOutputTokens: positiveInt('LATTICE_CHAT_MAX_OUTPUT_TOKENS', env.LATTICE_CHAT_MAX_OUTPUT_TOKENS, null),
  };
}

export function checkSlotModels(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new ChatConfigError('LATTICE_CHAT_MODELS must be a JSON object of catalog id -> platform model id');
  }
  const out: Record<string, string> = {};
  for (const [slot, model] of Object.entries(value)) {
    if (!findSlot(slot)) throw new ChatConfigError(`LATTICE_CHAT_MODELS names '${slot}', which is not a catalog id (${CATALOG.map((s) => s.id).join(', ')})`);
    if (typeof model !== 'string' || model === '') throw new ChatConfigError(`LATTICE_CHAT_MODELS['${slot}'] must be a platform model id`);
    out[slot] = model;
  }
  return out;
}
