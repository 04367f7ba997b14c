/** The success envelope `{success: true, data}` of every core route but /health, declared once. */
import { Type, type TSchema } from 'typebox';
import { CoreError } from './errors.ts';

export function envelope<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}

/** Response schemas of a route: its 200 (or `status`) envelope plus the error envelope. */
export function responses<T extends TSchema>(data: T, status = 200) {
  return { [status]: envelope(data), '4xx': CoreError, '5xx': CoreError } as const;
}

export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}
