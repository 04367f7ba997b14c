/**
 * The `{success: true, data}` / `{success: false, error: {code, message}}` envelope shared by the
 * services whose spec names it (core, interface 3; positioning, interface 7): the shape given to
 * error-shape.ts (where the platform's refusals land, the error body), the success wrapper, and
 * the schemas declared once for OpenAPI. Each service keeps only its catalogue of codes.
 */
import { Type, type TSchema } from 'typebox';
import type { ApiError } from './errors.ts';
import { errorShape } from './error-shape.ts';

/** The catalogue codes the platform's own refusals land on; every envelope catalogue has them. */
type PlatformTarget = 'INVALID_REQUEST' | 'UNSUPPORTED_MEDIA_TYPE' | 'NOT_FOUND' | 'INTERNAL_ERROR' | 'RATE_LIMIT_EXCEEDED';

/** The success envelope of a route's data. */
export function envelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}

export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/**
 * One service's envelope from its catalogue (code to HTTP status, in the order OpenAPI lists
 * them). A code the catalogue does not know becomes INTERNAL_ERROR on a 5xx and
 * INVALID_REQUEST otherwise, so a client only ever sees catalogue codes.
 *
 * @example
 * const { error, format, schema, responses } = envelopeCatalogue({
 *   codes: { INVALID_REQUEST: 400, NOT_FOUND: 404, UNSUPPORTED_MEDIA_TYPE: 415, RATE_LIMIT_EXCEEDED: 429, INTERNAL_ERROR: 500 },
 *   schemaId: 'DemoError',
 *   description: 'Error envelope of the demo service.',
 * });
 * throw error('NOT_FOUND', 'No such thing');
 */
export function envelopeCatalogue<const C extends Record<PlatformTarget, number> & Record<string, number>>(options: {
  codes: C;
  /** `$id` of the error schema: routes and OpenAPI refer to it by this name. */
  schemaId: string;
  description: string;
}) {
  const { codes, schemaId, description } = options;
  const shape = errorShape({
    codes,
    platform: {
      invalid: 'INVALID_REQUEST',
      unsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
      rateLimited: 'RATE_LIMIT_EXCEEDED',
      notFound: 'NOT_FOUND',
      internal: 'INTERNAL_ERROR',
    },
    body: (code, e) => ({ success: false, error: { code, message: e.message } }),
  });

  /** The envelope carries no details, so an error here is its code, its words and its headers. */
  function error(code: keyof C & string, message: string, headers: Record<string, string> = {}): ApiError {
    return shape.error(code, message, {}, headers);
  }

  const schema = Type.Object(
    {
      success: Type.Literal(false),
      error: Type.Object({
        code: Type.String({ description: `one of ${Object.keys(codes).join(', ')}` }),
        message: Type.String({ description: 'What went wrong, in words.' }),
      }),
    },
    { $id: schemaId, description },
  );

  /** Response schemas of a route: its 200 (or `status`) envelope plus the error envelope. */
  function responses<T extends TSchema>(data: T, status = 200) {
    return { [status]: envelope(data), '4xx': schema, '5xx': schema } as const;
  }

  return { error, format: shape.format, schema, responses };
}
