// What retrieval needs from an embedding model, and the classic one that is always available.
import { HASH_DIMENSIONS, hashEmbed } from './hashing.ts';

export interface Embedder {
  /** Recorded in an index so that queries are embedded by the same model as the documents. */
  readonly name: string;
  readonly dimensions: number;
  /** Unit vectors, one per text, in order. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export const CLASSIC_EMBEDDER_NAME = 'classic-hash-512';

export const classicEmbedder: Embedder = {
  name: CLASSIC_EMBEDDER_NAME,
  dimensions: HASH_DIMENSIONS,
  async embed(texts) {
    return hashEmbed(texts);
  },
};
