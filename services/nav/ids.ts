/** Identifiers of the positioning service: `<prefix>_<24 hex>`. */
import { randomBytes } from 'node:crypto';

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
