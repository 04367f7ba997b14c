// The provider interface every model backend implements: chat (whole or streamed), embeddings, rerank.

export type Role = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: Role;
  content: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string[];
  /** Seed for sampling, where the backend supports it (the local provider does). */
  seed?: number;
  /** A GGUF LoRA adapter applied to this request only (local provider). */
  lora?: { path: string; scale?: number };
  signal?: AbortSignal;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type FinishReason = 'stop' | 'length';

export interface ChatResult {
  model: string;
  content: string;
  finish_reason: FinishReason;
  usage: Usage;
}

/** One streamed piece: text deltas, then a final chunk carrying finish_reason and usage. */
export type ChatChunk =
  | { type: 'delta'; content: string }
  | { type: 'done'; finish_reason: FinishReason; usage: Usage };

export interface EmbedResult {
  model: string;
  dimensions: number;
  /** One vector per input, in input order; unit length (L2) unless the provider says otherwise. */
  data: number[][];
  usage: { prompt_tokens: number; total_tokens: number };
}

export interface RerankHit {
  index: number;
  score: number;
}

export interface RerankResult {
  model: string;
  /** Best first. */
  results: RerankHit[];
}

export interface ChatProvider {
  chat(req: ChatRequest): Promise<ChatResult>;
  chatStream(req: ChatRequest): AsyncIterable<ChatChunk>;
}

export interface EmbedProvider {
  embed(model: string, input: string[], signal?: AbortSignal): Promise<EmbedResult>;
}

export interface RerankProvider {
  rerank(model: string, query: string, documents: string[], topK?: number, signal?: AbortSignal): Promise<RerankResult>;
}

/** A backend: any subset of the three capabilities, plus release of what it holds. */
export interface Provider extends Partial<ChatProvider>, Partial<EmbedProvider>, Partial<RerankProvider> {
  readonly kind: string;
  close?(): Promise<void>;
}
