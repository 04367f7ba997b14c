/**
 * LoRA adapters on disk for llama.cpp. The database keeps every adapter (the training job's
 * `adapter` bytes); this cache writes one to a file the first time a process needs it, so a
 * chat uses a newly trained adapter at once, in any process, without a restart.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sql } from '../../../platform/storage/database.ts';

export class Adapters {
  readonly dir: string;
  private readonly temporary: boolean;

  constructor(
    private readonly db: Sql,
    dataDir: string,
  ) {
    this.temporary = !dataDir;
    this.dir = dataDir ? join(dataDir, 'llm-adapters') : mkdtempSync(join(tmpdir(), 'lattice-llm-adapters-'));
    mkdirSync(this.dir, { recursive: true });
  }

  /** A writable path for a new adapter of `jobId` (the training thread writes it). */
  scratchPath(jobId: string): string {
    return join(this.dir, `${jobId}.training.gguf`);
  }

  /** The adapter file of a completed job, written from the database when this process has none. */
  async pathFor(jobId: string): Promise<string | null> {
    const path = join(this.dir, `${jobId}.gguf`);
    if (existsSync(path)) return path;
    const [row] = await this.db.query<{ adapter: Uint8Array | null }>("SELECT adapter FROM llm_training_jobs WHERE id = $1 AND status = 'completed'", [jobId]);
    if (!row?.adapter) return null;
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, row.adapter);
    renameSync(tmp, path);
    return path;
  }

  close(): void {
    if (this.temporary) rmSync(this.dir, { recursive: true, force: true });
  }
}
