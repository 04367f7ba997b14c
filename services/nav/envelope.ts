/** The success envelope `{success: true, data}` of every route but /health and /evidence/keys, declared once. */
import { Type, type TSchema } from 'typebox';
import { NavError } from './errors.ts';

export function envelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}

export function responses<T extends TSchema>(data: T, status = 200) {
  return { [status]: envelope(data), '4xx': NavError, '5xx': NavError } as const;
}

export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}
