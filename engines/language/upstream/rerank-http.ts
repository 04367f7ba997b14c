/**
 * The upstream rerank provider for Cohere-style (`POST /rerank` {model, query, documents,
 * top_n} → {results: [{index, relevance_score}]}) and TEI-style (`POST /rerank` {query, texts}
 * → [{index, score}]) servers. The answer shape is detected, checked, and sorted best first.
 */
import { LanguageError } from '../errors.ts';
import type { Provider, RerankResult } from '../types.ts';
import { joinUrl, postJson, readJson } from './http.ts';
import type { UpstreamOptions } from './http.ts';

export interface RerankHttpOptions extends UpstreamOptions {
  style?: 'cohere' | 'tei';
}

export class RerankHttpProvider implements Provider {
  readonly kind = 'rerank-http';
  private readonly opts: RerankHttpOptions;

  constructor(opts: RerankHttpOptions) {
    this.opts = opts;
  }

  async rerank(model: string, query: string, documents: string[], topK?: number, signal?: AbortSignal): Promise<RerankResult> {
    if (typeof query !== 'string' || query === '') throw new LanguageError('invalid_request', 'query must be a non-empty string');
    if (!Array.isArray(documents) || documents.some((d) => typeof d !== 'string')) throw new LanguageError('invalid_request', 'documents must be a list of strings');
    if (documents.length === 0) return { model, results: [] };
    const url = joinUrl(this.opts.baseUrl, 'rerank');
    const tei = this.opts.style === 'tei';
    const body = tei ? { query, texts: documents } : { model, query, documents, ...(topK ? { top_n: topK } : {}) };
    const json = (await readJson(await postJson(this.opts, 'rerank', body, signal), url)) as unknown;
    const list = Array.isArray(json) ? json : (json as { results?: unknown })?.results;
    if (!Array.isArray(list)) throw new LanguageError('upstream_bad_response', `upstream ${url} answered without a results list`);
    const results = list.map((r: { index?: unknown; relevance_score?: unknown; score?: unknown }) => {
      const score = typeof r?.relevance_score === 'number' ? r.relevance_score : r?.score;
      if (typeof r?.index !== 'number' || !Number.isInteger(r.index) || r.index < 0 || r.index >= documents.length || typeof score !== 'number') {
        throw new LanguageError('upstream_bad_response', `upstream ${url} answered a result without a valid index and score`);
      }
      return { index: r.index, score };
    });
    results.sort((a, b) => b.score - a.score);
    return { model, results: topK ? results.slice(0, topK) : results };
  }
}
