/** Identifiers of the positioning service: `<prefix>_<24 hex>`. */
import { randomBytes } from 'node:crypto';

/** Prefix of the service's API keys (`nav_...`). */
export const NAV_KEY_PREFIX = 'nav';

export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}
