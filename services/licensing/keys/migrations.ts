/** Schema of variant B (license keys, their revocations) — filled in by the variant B module. */
import type { Migration } from '../../../platform/storage/migrate.ts';

export const variantBMigrations: Migration[] = [];
