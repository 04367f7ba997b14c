/**
 * Where a client keeps the highest revocation epoch it has seen (anti-rollback). The file
 * store writes atomically (temporary file, then rename) so a crash never leaves it torn.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

export interface EpochStore {
  read(): number;
  write(epoch: number): void;
}

export class MemoryEpochStore implements EpochStore {
  constructor(private epoch = 0) {}
  read(): number {
    return this.epoch;
  }
  write(epoch: number): void {
    this.epoch = epoch;
  }
}

export class FileEpochStore implements EpochStore {
  constructor(private readonly path: string) {}
  read(): number {
    if (!existsSync(this.path)) return 0;
    const value = Number(readFileSync(this.path, 'utf8').trim());
    return Number.isInteger(value) && value >= 0 ? value : 0;
  }
  write(epoch: number): void {
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${epoch}\n`);
    renameSync(tmp, this.path);
  }
}
