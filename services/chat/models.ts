/**
 * Which platform model answers each catalog slot, and the reply generation itself: the
 * conversation's history sent to the language engine (streamed), cut from the oldest end
 * when it does not fit the platform model's context.
 */
import { BUILTIN_MODEL_ID, BUILTIN_MODEL_PATH } from '../../engines/language/config.ts';
import { LanguageError } from '../../engines/language/errors.ts';
import type { ModelRegistry } from '../../engines/language/registry.ts';
import type { ChatChunk, ChatMessage, Usage } from '../../engines/language/types.ts';
import { CATALOG, findSlot, type CatalogSlot } from './catalog.ts';
import { ChatConfigError, type ChatConfig } from './config.ts';
import { errors } from './errors.ts';

export class SlotModels {
  private readonly bySlot = new Map<string, string>();

  constructor(
    readonly registry: ModelRegistry,
    private readonly config: ChatConfig,
  ) {
    for (const slot of CATALOG) {
      const model = config.slotModels[slot.id] ?? registry.config.default_chat_model;
      try {
        registry.model(model, 'chat');
      } catch (err) {
        throw new ChatConfigError(`chat slot ${slot.id}: ${(err as Error).message}`);
      }
      this.bySlot.set(slot.id, model);
    }
  }

  /** The catalog slot for a chat model id, or the 400 naming the known ids. */
  slot(id: string): CatalogSlot {
    const slot = findSlot(id);
    if (!slot) throw errors.unknownModel(id, CATALOG.map((s) => s.id));
    return slot;
  }

  platformModel(slot: CatalogSlot): string {
    return this.bySlot.get(slot.id)!;
  }

  /** Whether the engine's built-in smoke-test model answers the slot (not a model configured under its id). */
  servedByBuiltin(slot: CatalogSlot): boolean {
    const id = this.platformModel(slot);
    const m = this.registry.config.models.find((x) => x.id === id);
    return id === BUILTIN_MODEL_ID && m?.provider === 'local' && m.path === BUILTIN_MODEL_PATH;
  }

  /** The reply's token budget: the slot's maximum output, under the deployment's cap. */
  maxTokens(slot: CatalogSlot): number {
    return Math.min(slot.maxOutput, this.config.maxOutputTokens ?? Number.POSITIVE_INFINITY);
  }

  /**
   * Streams the reply to `history` (oldest first, ending with the new user message). When the
   * platform model's context cannot hold it, the oldest turns are dropped (never the last
   * message) and the call is repeated; that can only happen before any text was produced.
   */
  async *reply(slot: CatalogSlot, history: ChatMessage[], signal: AbortSignal): AsyncGenerator<ChatChunk> {
    let messages = history;
    for (;;) {
      let produced = false;
      try {
        for await (const chunk of this.registry.chatStream({ model: this.platformModel(slot), messages, max_tokens: this.maxTokens(slot), signal })) {
          produced = true;
          yield chunk;
        }
        return;
      } catch (err) {
        const tooLong = err instanceof LanguageError && err.code === 'context_length_exceeded';
        if (!tooLong || produced || messages.length <= 1 || signal.aborted) throw err;
        // Keep the newer half (at least the last message), starting at a user turn.
        let from = Math.max(1, Math.floor(messages.length / 2));
        while (from < messages.length - 1 && messages[from]!.role !== 'user') from++;
        messages = messages.slice(from);
      }
    }
  }
}

export type { Usage };
