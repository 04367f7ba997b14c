// Resolves a rerank tier name (as the CLI and the chat API spell it) to a reranker.
import { invalid } from '../errors.ts';
import type { Reranker } from '../retrieval/search-index.ts';
import { classicReranker } from './classic.ts';

export const RERANK_TIERS = ['classic', 'quantum_cpu', 'quantum_gpu'] as const;
export type RerankTierName = (typeof RERANK_TIERS)[number];

export async function rerankerFor(tier: string): Promise<Reranker> {
  if (tier === 'classic') return classicReranker();
  if (tier === 'quantum_cpu' || tier === 'quantum_gpu') {
    const { quantumReranker } = await import('./quantum.ts');
    return quantumReranker({ device: tier === 'quantum_gpu' ? 'gpu' : 'cpu' });
  }
  throw invalid(`unknown rerank tier "${tier}": use ${RERANK_TIERS.join(', ')}`);
}
