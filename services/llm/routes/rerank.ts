/**
 * POST /v1/rerank — Cohere-style: a query and documents (strings, or objects with `text`),
 * `top_k`, and a `tier` (classic by default, or the tenant's rerank_tier when it enabled
 * rerank). Results are best first with `index` into the request's documents, the
 * `document` (`{text}`), `score` (and `relevance_score`, the same number, for Cohere clients).
 * Quantum tiers (licensed: quantum_rerank) add the engine's fidelity kernel, simulated on the
 * project's statevector simulator; `meta.device` says where it ran.
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import type { RerankTierName } from '../../../engines/language/rerank/tiers.ts';
import { commonErrors } from '../errors.ts';
import { begin, bearerSecurity, requireLicense, TAG, type QDeps } from './context.ts';
import { MAX_TEXT_CHARS, RerankTier } from './schemas.ts';

export function registerRerank(app: ServiceApp, deps: QDeps): void {
  app.post(
    '/v1/rerank',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.inference],
        summary: 'Rerank documents for a query',
        security: bearerSecurity,
        body: Type.Object({
          query: Type.String({ minLength: 1, maxLength: 20_000 }),
          documents: Type.Array(Type.Union([Type.String({ maxLength: MAX_TEXT_CHARS }), Type.Object({ text: Type.String({ maxLength: MAX_TEXT_CHARS }) }, { additionalProperties: true, description: 'A document is data: fields beside text are allowed and not used' })]), { minItems: 1, maxItems: 1000 }),
          top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
          top_n: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Cohere’s name for top_k' })),
          tier: Type.Optional(RerankTier),
          model: Type.Optional(Type.String({ description: 'Accepted for Cohere clients; a tier name here picks that tier' })),
          return_documents: Type.Optional(Type.Boolean({ description: 'Accepted for Cohere clients; each result always carries its document' })),
        }),
        response: {
          200: Type.Object({
            results: Type.Array(Type.Object({ index: Type.Integer(), document: Type.Object({ text: Type.String() }), score: Type.Number(), relevance_score: Type.Number() })),
            meta: Type.Object({
              tier: Type.String(),
              latency_ms: Type.Number(),
              device: Type.Union([Type.String(), Type.Null()], { description: 'Where a quantum tier’s circuits ran (cpu: there is no GPU simulator), null for classic' }),
              requested_device: Type.Union([Type.String(), Type.Null()]),
              circuits: Type.Integer(),
              qubits: Type.Integer(),
            }),
          }),
          ...commonErrors,
        },
      },
    },
    async (req) => {
      const caller = await begin(deps, req, { inference: true });
      const b = req.body;
      const fromModel = b.model === 'classic' || b.model === 'quantum_cpu' || b.model === 'quantum_gpu' ? b.model : undefined;
      const settings = caller.tenant?.settings;
      const tier: RerankTierName = b.tier ?? fromModel ?? (settings?.enable_rerank ? settings.rerank_tier : 'classic');
      if (tier !== 'classic') await requireLicense(deps, req, caller, 'quantum_rerank');
      const texts = b.documents.map((d) => (typeof d === 'string' ? d : d.text));
      const t = performance.now();
      const run = await deps.language.rerank(tier, b.query, texts);
      const latency = performance.now() - t;
      const k = b.top_k ?? b.top_n ?? texts.length;
      return {
        results: run.order.slice(0, k).map((r) => ({ index: r.index, document: { text: texts[r.index]! }, score: r.score, relevance_score: r.score })),
        meta: {
          tier,
          latency_ms: Math.round(latency * 1000) / 1000,
          device: run.device,
          requested_device: tier === 'quantum_gpu' ? 'gpu' : tier === 'quantum_cpu' ? 'cpu' : null,
          circuits: run.circuits,
          qubits: run.qubits,
        },
      };
    },
  );
}
