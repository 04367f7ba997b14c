/** Validation of tenant settings against the configured models. */
import type { Language } from './language.ts';
import type { TenantSettings } from './tenants.ts';

export function checkSettings(language: Language, patch: Partial<TenantSettings>): void {
  if (patch.default_model !== undefined) language.model(patch.default_model, 'chat');
}
