/**
 * The `{success: true, data}` / `{success: false, error: {code, message}}` envelope shared by the
 * services whose spec names it (core, interface 3; positioning, interface 7). Each service keeps
 * its own catalogue of codes; this builds from it the error constructor, the formatter that puts
 * every failure (its own and the platform's) in the envelope, and the schemas declared once for
 * OpenAPI.
 */
import { Type, type TSchema } from 'typebox';
import { ApiError, type ErrorFormatter } from './errors.ts';

/** The catalogue codes the platform's own refusals land on; every envelope catalogue has them. */
type PlatformTarget = 'INVALID_REQUEST' | 'UNSUPPORTED_MEDIA_TYPE' | 'NOT_FOUND' | 'INTERNAL_ERROR' | 'RATE_LIMIT_EXCEEDED';

/** The platform's own codes (validation, malformed JSON, unknown routes...) in the envelope's words. */
const PLATFORM_CODES: Record<string, PlatformTarget> = {
  validation_error: 'INVALID_REQUEST',
  invalid_json: 'INVALID_REQUEST',
  body_too_large: 'INVALID_REQUEST',
  bad_request: 'INVALID_REQUEST',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  not_found: 'NOT_FOUND',
  internal_error: 'INTERNAL_ERROR',
  rate_limited: 'RATE_LIMIT_EXCEEDED',
};

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

  function error(code: keyof C & string, message: string, headers: Record<string, string> = {}): ApiError {
    return new ApiError(codes[code], code, message, {}, headers);
  }

  const format: ErrorFormatter = (e) => {
    const code = e.code in codes ? e.code : (PLATFORM_CODES[e.code] ?? (e.status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST'));
    return { success: false, error: { code, message: e.message } };
  };

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

  return { error, format, schema, responses };
}
