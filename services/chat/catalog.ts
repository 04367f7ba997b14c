/**
 * The chat application's public catalog (spec, "Chat application catalog"): six model slots
 * with context sizes and prices in US dollars per million tokens. Ids are spelled
 * `<prefix>:<id>` as the chat application spells them; each slot is served by a platform
 * model chosen by configuration (config.ts).
 */

/** The prefix of every chat model id (`lattice:compact`). */
export const CHAT_MODEL_PREFIX = 'lattice';

export interface CatalogSlot {
  id: string;
  name: string;
  description: string;
  contextWindow: number;
  /** Largest reply in tokens. */
  maxOutput: number;
  /** US dollars per million input tokens. */
  inputCost: number;
  /** US dollars per million output tokens. */
  outputCost: number;
  /** Consumes the separate daily counter of the pro models as well as the message counter. */
  pro: boolean;
}

const slot = (id: string, rest: Omit<CatalogSlot, 'id'>): CatalogSlot => ({ id: `${CHAT_MODEL_PREFIX}:${id}`, ...rest });

export const CATALOG: readonly CatalogSlot[] = [
  slot('compact', {
    name: 'Compact General',
    description: 'Fast, low-cost general assistant for everyday questions; the default for a new chat.',
    contextWindow: 128000,
    maxOutput: 16000,
    inputCost: 0.1,
    outputCost: 0.4,
    pro: false,
  }),
  slot('code', {
    name: 'Code Generation',
    description: 'Writes, explains and reviews code across a large working context.',
    contextWindow: 256000,
    maxOutput: 8000,
    inputCost: 0.4,
    outputCost: 1.2,
    pro: false,
  }),
  slot('enterprise-long-context', {
    name: 'Enterprise Long Context',
    description: 'Long documents and reports: summaries, comparisons and extraction.',
    contextWindow: 131000,
    maxOutput: 16000,
    inputCost: 0.35,
    outputCost: 1.4,
    pro: true,
  }),
  slot('multi-agent', {
    name: 'Multi-Agent Orchestration',
    description: 'Plans multi-step tasks and coordinates tools and sub-agents.',
    contextWindow: 131000,
    maxOutput: 8000,
    inputCost: 0.1,
    outputCost: 0.4,
    pro: true,
  }),
  slot('reasoning', {
    name: 'Advanced Reasoning',
    description: 'Step-by-step reasoning for mathematics, logic and analysis.',
    contextWindow: 131000,
    maxOutput: 8000,
    inputCost: 0.75,
    outputCost: 3.0,
    pro: true,
  }),
  slot('frontier-reasoning', {
    name: 'Frontier Research Reasoning',
    description: 'The deepest reasoning for research-grade problems; slowest and most expensive.',
    contextWindow: 200000,
    maxOutput: 32000,
    inputCost: 3.5,
    outputCost: 14.0,
    pro: true,
  }),
];

/** The slot a new chat uses when none is chosen (spec: compact general). */
export const DEFAULT_SLOT_ID = CATALOG[0]!.id;

export function findSlot(id: string): CatalogSlot | undefined {
  return CATALOG.find((s) => s.id === id);
}
