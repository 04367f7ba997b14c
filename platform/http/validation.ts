/**
 * Request validation. Query strings, path parameters and headers arrive as text, so their
 * schemas coerce ("page=2" becomes 2); JSON bodies do not: a string where the schema wants a
 * number is a client error, never silently converted.
 *
 * Unknown fields are refused, never dropped: a misspelt `shot` or `options.seed` that was
 * silently removed would run the request with defaults the client did not ask for. Every
 * object of a body or query-string schema that names its properties is closed
 * (`additionalProperties: false`) unless the schema itself says `additionalProperties: true`
 * or gives a schema for the extra properties; objects that name no properties (free-form
 * `metadata`, an evidence `bundle`) stay open. A route that declares no body takes none: a
 * body with fields is refused too (see `unexpectedBodyField`).
 */
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

/**
 * Schema keyword a route may set on an object to word its refusal of an unknown field, with
 * `{field}` standing for the field's name, e.g. the OpenAI-compatible bodies' "Unrecognized
 * request argument supplied: {field}".
 */
export const UNKNOWN_FIELD_MESSAGE = 'x-unknown-field-message';

type Schema = Record<string | symbol, unknown>;

const isSchema = (value: unknown): value is Schema => value !== null && typeof value === 'object' && !Array.isArray(value);

function makeAjv(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    // Refuse, never strip: see the top of this file.
    removeAdditional: false,
    // Every error, so that an unknown field is reported before the "required" or "type" error
    // it usually explains (a misspelt `backnd` also leaves `backend` missing). Bodies are
    // bounded by the body limit, so a full pass costs little.
    allErrors: true,
    // Errors carry their parent schema, which names the fields an unknown one may be meant as.
    verbose: true,
    strict: false,
  });
  ajv.addKeyword({ keyword: UNKNOWN_FIELD_MESSAGE, schemaType: 'string' });
  addFormats(ajv);
  return ajv;
}

type Validator = ReturnType<FastifySchemaCompiler<unknown>>;

/** Whether a body schema is an object that null does not satisfy. */
const wantsObject = (schema: unknown): boolean =>
  isSchema(schema) && (schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object') && !schema.type.includes('null')));

/**
 * A body validator that reads a request sent without a body as `{}`: every field of the body
 * then takes its default (POST /position with no body is a position with the spec's defaults),
 * and a body with required fields is refused naming the first missing one, instead of the
 * bare "body must be object".
 */
function absentBodyAsEmpty(validate: Validator): Validator {
  const wrapped: Validator = (data) => {
    if (data !== null && data !== undefined) {
      const ok = validate(data);
      wrapped.errors = validate.errors;
      return ok;
    }
    const empty = {};
    const ok = validate(empty);
    wrapped.errors = validate.errors;
    return ok ? { value: empty } : false;
  };
  return wrapped;
}

export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = makeAjv(false);
  const coercing = makeAjv('array');
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    const validate = ajv.compile(schema as object) as Validator;
    return httpPart === 'body' && wantsObject(schema) ? absentBodyAsEmpty(validate) : validate;
  };
}


/**
 * A copy of a request schema with every object that names its properties closed, and fields
 * with a default left out of `required`. Shared
 * sub-schemas map to one copy (ajv requires a schema with an `$id` to be one schema). The
 * members of an `allOf` stay as they are: closing each would refuse the others' fields.
 */
export function closeObjects<T>(schema: T, copies = new WeakMap<object, unknown>()): T {
  if (!isSchema(schema)) return schema;
  const known = copies.get(schema);
  if (known) return known as T;
  // Symbol keys (TypeBox's markers) come along with the spread.
  const copy: Schema = { ...schema };
  copies.set(schema, copy);
  if (isSchema(copy.properties)) {
    const properties: Schema = {};
    for (const [name, sub] of Object.entries(copy.properties)) properties[name] = closeObjects(sub, copies);
    copy.properties = properties;
    if (copy.additionalProperties === undefined && copy.patternProperties === undefined) copy.additionalProperties = false;
    // A field with a default is filled in when left out (useDefaults), so it is not required of
    // the client; saying so keeps the published OpenAPI document from demanding it.
    if (Array.isArray(copy.required)) {
      copy.required = copy.required.filter((name) => !(isSchema(properties[name]) && 'default' in (properties[name] as Schema)));
    }
  }
  if (isSchema(copy.additionalProperties)) copy.additionalProperties = closeObjects(copy.additionalProperties, copies);
  if (isSchema(copy.items)) copy.items = closeObjects(copy.items, copies);
  for (const key of ['items', 'prefixItems', 'anyOf', 'oneOf'] as const) {
    const list = copy[key];
    if (Array.isArray(list)) copy[key] = list.map((sub) => closeObjects(sub, copies));
  }
  return copy as T;
}

/**
 * The route's schema with its body and query string closed (see the top of this file). The
 * query string of a web page (a route hidden from the API document) stays open: a link may
 * carry parameters the page does not read (`utm_source`, a cache buster) and still open it.
 */
export function closeRequestSchema(schema: FastifySchema | undefined): FastifySchema | undefined {
  if (!schema) return schema;
  const copies = new WeakMap<object, unknown>();
  const closed: FastifySchema = { ...schema };
  if (schema.body) closed.body = closeObjects(schema.body, copies);
  if (schema.querystring && !(schema as { hide?: boolean }).hide) closed.querystring = closeObjects(schema.querystring, copies);
  return closed;
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * For a route that declares no body: the first field of a JSON object sent anyway, which
 * would otherwise be ignored without a word; null when there is none.
 */
export function unexpectedBodyField(method: string, schema: FastifySchema | undefined, body: unknown): string | null {
  if (!METHODS_WITH_BODY.has(method) || schema?.body !== undefined) return null;
  if (!isSchema(body) || Buffer.isBuffer(body)) return null;
  return Object.keys(body)[0] ?? null;
}

/**
 * Edit distance of two short names (insertions, deletions, substitutions and swaps of two
 * neighbours, the usual typing slips), to suggest the field an unknown one was meant as.
 */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** "body.options.seed is not a known field; known fields: seed_simulator, memory" (with a guess when one is close). */
export function unknownFieldMessage(where: string, error: ErrorObject): string {
  const field = (error.params as { additionalProperty: string }).additionalProperty;
  const parent = isSchema(error.parentSchema) ? error.parentSchema : {};
  const template = parent[UNKNOWN_FIELD_MESSAGE];
  if (typeof template === 'string') return template.replaceAll('{field}', field);
  const path = `${where}${error.instancePath.replaceAll('/', '.')}.${field}`;
  const names = isSchema(parent.properties) ? Object.keys(parent.properties) : [];
  if (names.length === 0) return `${path} is not a known field; this object takes no fields`;
  const close = names
    .map((name) => ({ name, d: distance(field.toLowerCase(), name.toLowerCase()) }))
    .filter(({ name, d }) => d <= Math.max(1, Math.floor(name.length / 3)))
    .sort((x, y) => x.d - y.d)[0];
  const guess = close ? ` (did you mean ${close.name}?)` : '';
  return `${path} is not a known field${guess}; known fields: ${names.join(', ')}`;
}

const listed = (values: readonly unknown[]) => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

/**
 * The message of a failed validation, naming the field: an unknown field with the fields the
 * object takes; a value outside an enumeration (or a union of constants) with the values
 * allowed, since "must be equal to constant" names none.
 */
export function validationMessage(where: string, errors: readonly ErrorObject[]): string {
  const first = errorToReport(errors);
  if (!first) return `${where} is invalid`;
  if (first.keyword === 'additionalProperties') return unknownFieldMessage(where, first);
  const path = `${where}${first.instancePath.replaceAll('/', '.')}`;
  const missing = (first.params as { missingProperty?: string }).missingProperty;
  if (missing) return `${path}.${missing} is required`;
  if (first.keyword === 'enum') return `${path} must be one of ${listed((first.params as { allowedValues: unknown[] }).allowedValues)}`;
  if (first.keyword === 'const') {
    // A union of constants (TypeBox's Union of Literals) fails every branch and then the anyOf.
    const union = errors.find((e) => (e.keyword === 'anyOf' || e.keyword === 'oneOf') && e.instancePath === first.instancePath);
    const branches = union && Array.isArray(union.schema) ? (union.schema as unknown[]) : [];
    const constants = branches.every((b) => isSchema(b) && 'const' in b) ? branches.map((b) => (b as Schema).const) : [];
    if (constants.length > 0) return `${path} must be one of ${listed(constants)}`;
    return `${path} must be ${listed([(first.params as { allowedValue: unknown }).allowedValue])}`;
  }
  return `${path} ${first.message ?? 'is invalid'}`;
}

/**
 * The error to report of all that ajv found: an unknown field first, as it usually explains
 * the others, unless it lies inside an alternative (`anyOf`, `oneOf`), where a field unknown to
 * one branch may belong to another; otherwise the first.
 */
export function errorToReport(errors: readonly ErrorObject[]): ErrorObject | undefined {
  return (
    errors.find((e) => e.keyword === 'additionalProperties' && !/\/(anyOf|oneOf)\//.test(e.schemaPath)) ?? errors[0]
  );
}
