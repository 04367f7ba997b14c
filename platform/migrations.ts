/**
 * The schema of the shared platform modules, applied whatever services a process starts, so
 * that every process on one store sees one schema. A platform module adds its list here once;
 * services list only their own migrations.
 */
import { billingMigrations } from './billing/migrations.ts';
import { identityMigrations } from './identity/migrations.ts';
import { quantumJobMigrations } from './quantum-jobs/migrations.ts';
import { featureKeyMigrations } from './licenses/migrations.ts';
import { evidenceMigrations } from './evidence/migrations.ts';
import { webhookMigrations } from './webhooks/migrations.ts';
import { limitMigrations } from './limits/migrations.ts';
import { clusterMigrations } from './cluster/migrations.ts';
import { secretsMigrations } from './secrets/migrations.ts';
import type { Migration } from './storage/migrate.ts';

export const platformMigrations: readonly Migration[] = [...identityMigrations, ...quantumJobMigrations, ...featureKeyMigrations, ...billingMigrations, ...evidenceMigrations, ...webhookMigrations, ...limitMigrations, ...clusterMigrations, ...secretsMigrations];
