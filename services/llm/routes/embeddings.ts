/**
 * POST /v1/embeddings — OpenAI-compatible: `input` a string or a list of strings, `model`
 * optional (default: the configured embedding model, `classic-embed`), `encoding_format`
 * `float` (default) or `base64` (little-endian float32 bytes, what the OpenAI SDK asks for).
 */
import { Type } from 'typebox';
import type { ServiceApp } from '../../../platform/http/app.ts';
import { LanguageError } from '../../../engines/language/errors.ts';
import { embeddingsJson } from '../embeddings-json.ts';
import { commonErrors, qError } from '../errors.ts';
import { begin, bearerSecurity, TAG, type QDeps } from './context.ts';
import { MAX_TEXT_CHARS } from './schemas.ts';

const MAX_INPUTS = 2048;

export function registerEmbeddings(app: ServiceApp, deps: QDeps): void {
  app.post(
    '/v1/embeddings',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: [TAG.inference],
        summary: 'Embed texts',
        security: bearerSecurity,
        body: Type.Object({
          input: Type.Union([Type.String({ maxLength: MAX_TEXT_CHARS }), Type.Array(Type.String({ maxLength: MAX_TEXT_CHARS }), { minItems: 1, maxItems: MAX_INPUTS })]),
          model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          encoding_format: Type.Optional(Type.Union([Type.Literal('float'), Type.Literal('base64')])),
          dimensions: Type.Optional(Type.Integer({ minimum: 1 })),
          user: Type.Optional(Type.String()),
        }),
        response: {
          200: Type.Object({
            object: Type.Literal('list'),
            data: Type.Array(Type.Object({ object: Type.Literal('embedding'), index: Type.Integer(), embedding: Type.Union([Type.Array(Type.Number()), Type.String({ description: 'base64 of float32 little-endian' })]) })),
            model: Type.String(),
            usage: Type.Object({ prompt_tokens: Type.Integer(), total_tokens: Type.Integer() }),
          }),
          ...commonErrors,
        },
      },
    },
    async (req, reply) => {
      const caller = await begin(deps, req, { tokens: true, inference: true });
      const b = req.body;
      const inputs = typeof b.input === 'string' ? [b.input] : b.input;
      const model = deps.language.model(b.model ?? deps.language.config.default_embedding_model, 'embed');
      if (b.dimensions !== undefined) throw qError('INVALID_REQUEST', `model ${model.id} has fixed dimensions; dimensions cannot be chosen`);
      let r;
      try {
        r = await deps.language.models.embed(inputs, model.id);
      } catch (err) {
        if (err instanceof LanguageError) throw qError(err.code === 'model_not_found' ? 'MODEL_NOT_FOUND' : err.status < 500 ? 'INVALID_REQUEST' : 'INTERNAL_ERROR', err.message);
        throw err;
      }
      deps.limits.chargeTokens(caller, deps.ctx.now(), r.usage.total_tokens);
      // Serialised here, into the bytes that go out (embeddings-json.ts says why); the
      // content type is the one Fastify gave the JSON string this route used to send.
      return reply.type('application/json; charset=utf-8').send(embeddingsJson(r, b.encoding_format ?? 'float'));
    },
  );
}
