/**
 * The local object store of emulated supplier C tasks. With credentials, supplier C writes a
 * task's results to the caller's bucket and the status names that location; emulated, the
 * service keeps the same document in a table of its own database (`supplier_objects`), so it
 * lives with the job rows, in the same backups, and survives restarts. The location reads like
 * the supplier's (`s3://{bucket}/{prefix}/{task_id}`, a directory holding `results.json`) and
 * `GET /api/v1/supplier_c/storage/{bucket}/{key}` reads a document back. Buckets are per
 * account: two accounts naming the same bucket never see each other's objects.
 */
import type { Sql } from '../../platform/storage/database.ts';
import { sha3 } from './circuit.ts';
import type { JobResult, SupplierJob } from './store.ts';

/** The bucket and prefix of an emulated task whose request named none (the remote adapter's prefix default too). */
export const DEFAULT_BUCKET = 'lattice-local';
export const DEFAULT_PREFIX = 'lattice';
/** The document's name inside the task's directory, as the supplier names it. */
export const RESULT_FILE = 'results.json';

export interface StoredObject {
  bucket: string;
  key: string;
  contentType: string;
  body: string;
  sha3: string;
  size: number;
  createdAt: Date;
}

/** The task's output directory: the prefix (without surrounding slashes) and the task id. */
export function taskDirectory(prefix: string | null, taskId: string): string {
  const p = (prefix ?? DEFAULT_PREFIX).replace(/^\/+|\/+$/g, '');
  return p ? `${p}/${taskId}` : taskId;
}

export function locationOf(bucket: string, directory: string): string {
  return `s3://${bucket}/${directory}`;
}

/**
 * Writes a completed emulated task's result document and answers its location. Written before
 * the job row reads completed, so a completed task's document is always there; a second
 * finisher racing the first writes nothing (the first document stays, byte for byte).
 */
export async function storeTaskResult(db: Sql, job: SupplierJob, result: JobResult, resultHash: string | null, now: Date): Promise<string> {
  const bucket = job.storageBucket ?? DEFAULT_BUCKET;
  const directory = taskDirectory(job.storagePrefix, job.publicId);
  const doc = {
    task_id: job.publicId,
    device_arn: job.target,
    status: 'COMPLETED',
    shots: result.shots,
    counts: result.counts,
    execution_time_seconds: typeof result.execution_time === 'number' ? Math.round(result.execution_time * 1e6) / 1e6 : null,
    result_hash: resultHash,
    created_at: job.createdAt.toISOString(),
    completed_at: now.toISOString(),
  };
  const body = `${JSON.stringify(doc, null, 2)}\n`;
  await db.query(
    `INSERT INTO supplier_objects (account_id, bucket, key, content_type, body, sha3, size, created_at)
     VALUES ($1, $2, $3, 'application/json', $4, $5, $6, $7) ON CONFLICT (account_id, bucket, key) DO NOTHING`,
    [job.accountId, bucket, `${directory}/${RESULT_FILE}`, body, sha3(body), Buffer.byteLength(body), now],
  );
  return locationOf(bucket, directory);
}

/** An object of the account's local store, or null. */
export async function getObject(db: Sql, accountId: string, bucket: string, key: string): Promise<StoredObject | null> {
  const [r] = await db.query<{ bucket: string; key: string; content_type: string; body: string; sha3: string; size: number | string; created_at: Date | string }>(
    'SELECT bucket, key, content_type, body, sha3, size, created_at FROM supplier_objects WHERE account_id = $1 AND bucket = $2 AND key = $3',
    [accountId, bucket, key],
  );
  if (!r) return null;
  return { bucket: r.bucket, key: r.key, contentType: r.content_type, body: r.body, sha3: r.sha3, size: Number(r.size), createdAt: new Date(r.created_at) };
}
