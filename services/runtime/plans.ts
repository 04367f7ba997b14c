/**
 * The runtime's one plan and its roles (CONTRACT "Credits, plans and limits"): `viewer` holds
 * only `runtime:read`; `developer` and `admin` may also execute (submit, approve, cancel).
 */
import type { PlanInfo } from '../../platform/service.ts';

/** Prefix of the runtime's API keys (`qrt_...`). */
export const RUNTIME_KEY_PREFIX = 'qrt';

export const RUNTIME_PLANS: readonly PlanInfo[] = [{ name: 'standard' }];

/** The first is the role of a key created without `--role`. */
export const RUNTIME_ROLES = ['developer', 'viewer', 'admin'] as const;

export type Permission = 'runtime:read' | 'runtime:execute';

const PERMISSIONS: Record<string, readonly Permission[]> = {
  viewer: ['runtime:read'],
  developer: ['runtime:read', 'runtime:execute'],
  admin: ['runtime:read', 'runtime:execute'],
  // Keys made before the runtime had roles (`member`) act as developers.
  member: ['runtime:read', 'runtime:execute'],
};

export function permissionsOf(role: string): readonly Permission[] {
  return PERMISSIONS[role] ?? ['runtime:read'];
}

/** Most shots one runtime job may ask for; a device's own `max_shots` caps it too. */
export const MAX_SHOTS = 1_000_000;
