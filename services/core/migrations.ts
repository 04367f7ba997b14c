/**
 * Core keeps no tables of its own: its jobs are rows of the shared quantum job system
 * (service `core`, batches by `batch_id`), its bundles rows of the evidence module, and its
 * monthly evaluations a counter of the identity module's usage counters.
 */
import type { Migration } from '../../platform/storage/migrate.ts';

export const coreMigrations: Migration[] = [];
