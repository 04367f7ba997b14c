/** Schemas shared by several routes: tenant, settings, list envelope. */
import { Type, type TObject, type TProperties, type TSchema } from 'typebox';
import { TIERS } from '../plans.ts';

/**
 * The longest text (characters) that embeddings and rerank take per input or document. The
 * classic and quantum tiers read a whole text whatever its length, so this cap is their
 * longest input, which /v1/models reports as their context_length.
 */
export const MAX_TEXT_CHARS = 200_000;

export const RerankTier = Type.Union([Type.Literal('classic'), Type.Literal('quantum_cpu'), Type.Literal('quantum_gpu')]);
export const Tier = Type.String({ minLength: 1, maxLength: 20, description: `${TIERS.join(', ')} (any letter case)` });

export const SettingsPatch = Type.Object(
  {
    default_model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Chat model used when a request names none, and the base of LoRA training' })),
    max_tokens_per_request: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096, description: 'Cap on max_tokens of this tenant’s chats (a larger request is capped)' })),
    enable_rerank: Type.Optional(Type.Boolean({ description: 'Rerank candidates on every chat that does not say use_rerank' })),
    rerank_tier: Type.Optional(RerankTier),
    custom_system_prompt: Type.Optional(Type.Union([Type.String({ maxLength: 4000 }), Type.Null()], { description: 'Prepended as the first system message of every chat of this tenant' })),
    min_feedback_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, description: 'Training samples needed before feedback stats say ready_for_training (default 10)' })),
  },
  { additionalProperties: false },
);

export const Settings = Type.Object({
  default_model: Type.String(),
  max_tokens_per_request: Type.Integer(),
  enable_rerank: Type.Boolean(),
  rerank_tier: Type.String(),
  custom_system_prompt: Type.Union([Type.String(), Type.Null()]),
  min_feedback_count: Type.Integer(),
});

export const Tenant = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  tier: Type.String(),
  settings: Settings,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

export const TenantIdParams = Type.Object({ tenant_id: Type.String({ minLength: 1, maxLength: 100, description: 'Tenant id (or slug)' }) });

export function listOf(item: TSchema) {
  return Type.Object({ data: Type.Array(item), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() });
}

/** An object schema with the properties of both. */
export function extend<A extends TProperties, B extends TProperties>(a: TObject<A>, b: TObject<B>): TObject<A & B> {
  return Type.Object({ ...a.properties, ...b.properties }) as unknown as TObject<A & B>;
}
