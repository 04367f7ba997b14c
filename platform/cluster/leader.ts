/**
 * One leader per cluster for a named piece of background work (the positioning receiver, a
 * repair loop, a clean-up), so that work that must run once runs in one process at a time.
 *
 * On PostgreSQL a process leads while it holds a session-level advisory lock on a connection
 * of its own (the key: the schema and the work's name). PostgreSQL releases the lock the moment
 * that connection ends, so when a leader dies, another process takes over at its next attempt
 * (every `retryMs`, 1 s by default, on a connection it keeps). A leader checks its connection at
 * the same pace and steps down as soon as it fails. The embedded store belongs to one process,
 * which always leads.
 *
 * The leader also writes its address to `cluster_leaders`, for work whose followers send
 * requests to it (the positioning service). What a process keeps: whether it leads, and the
 * connection holding the lock; nothing else.
 */
import { hostname } from 'node:os';
import type { Database, DedicatedSession } from '../storage/database.ts';

export interface LeadershipOptions {
  /** Called when this process becomes the leader; its work starts here. */
  onGain: () => Promise<void> | void;
  /** Called when it stops leading (lost connection, or stop()); its work stops here. */
  onLose: () => Promise<void> | void;
  /** How often a follower tries to take the lead and a leader checks it still holds it. */
  retryMs?: number;
  /** The address followers may reach the leader at, written to `cluster_leaders` (optional). */
  address?: () => string | null;
  log?: (line: string) => void;
}

export interface LeaderRow {
  name: string;
  holder: string;
  address: string | null;
  since: Date;
}

export class Leadership {
  private session: DedicatedSession | null = null;
  private leading = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private busy: Promise<void> = Promise.resolve();
  /** The first attempt, once start() began it. */
  private first: Promise<void> | null = null;
  readonly holder = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;

  constructor(
    private readonly db: Database,
    readonly name: string,
    private readonly options: LeadershipOptions,
  ) {}

  get isLeader(): boolean {
    return this.leading;
  }

  /**
   * Resolves once the first attempt to lead has an outcome (at once when start() was not
   * called): a caller that started this without waiting for it (Fastify runs its onListen
   * hooks after listen() resolves) waits here before it acts as a follower.
   */
  async decided(): Promise<void> {
    await this.first?.catch(() => {});
  }

  /** Makes a first attempt (so a single process leads when this resolves), then keeps trying. */
  async start(): Promise<void> {
    this.first = this.step();
    await this.first;
    const tick = () => {
      if (this.stopped) return;
      this.busy = this.busy.then(() => this.step()).catch((err: unknown) => this.options.log?.(`leader ${this.name}: ${String(err)}`));
      this.timer = setTimeout(tick, this.options.retryMs ?? 1_000);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, this.options.retryMs ?? 1_000);
    this.timer.unref();
  }

  /** Stops trying; a leader stops its work, and releases the lock so another process takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    // The first attempt is not on `busy`: a stop during it waits for it, then gives back what it took.
    await this.first?.catch(() => {});
    await this.busy.catch(() => {});
    await this.stepDown();
  }

  private async step(): Promise<void> {
    if (this.stopped) return;
    if (this.db.kind !== 'postgres') {
      if (!this.leading) await this.gain();
      return;
    }
    if (this.leading) {
      // Still holding the lock: the connection answers.
      try {
        await this.session!.query('SELECT 1');
      } catch {
        await this.stepDown();
      }
      return;
    }
    // A follower keeps its connection between attempts (one connection per contender, not one a second).
    if (!this.session) {
      const session = await this.db.dedicated(() => {
        // The connection failed: a lock it held is gone with it.
        if (this.session === session) void (this.busy = this.busy.then(() => this.stepDown()));
      });
      if (!session) return;
      this.session = session;
    }
    let got = false;
    try {
      const [row] = await this.session.query<{ got: boolean }>('SELECT pg_try_advisory_lock(hashtext(current_schema() || $1)) AS got', [`:leader:${this.name}`]);
      got = Boolean(row?.got);
    } catch {
      await this.stepDown();
      return;
    }
    if (got) await this.gain();
  }

  private async gain(): Promise<void> {
    // The row before the flag: whoever sees isLeader finds where the leader is written.
    await this.db
      .query(
        `INSERT INTO cluster_leaders (name, holder, address, since) VALUES ($1, $2, $3, now())
         ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, address = EXCLUDED.address, since = EXCLUDED.since`,
        [this.name, this.holder, this.options.address?.() ?? null],
      )
      .catch(() => {});
    this.leading = true;
    this.options.log?.(`leader ${this.name}: this process (${this.holder}) leads`);
    try {
      await this.options.onGain();
    } catch (err) {
      this.options.log?.(`leader ${this.name}: could not start its work: ${String(err)}`);
      await this.stepDown();
    }
  }

  private async stepDown(): Promise<void> {
    const session = this.session;
    this.session = null;
    const was = this.leading;
    this.leading = false;
    if (was) {
      this.options.log?.(`leader ${this.name}: this process (${this.holder}) no longer leads`);
      await Promise.resolve(this.options.onLose()).catch(() => {});
      await this.db.query('DELETE FROM cluster_leaders WHERE name = $1 AND holder = $2', [this.name, this.holder]).catch(() => {});
    }
    if (session) await session.release();
  }
}

/** The process leading `name` as it last wrote itself, or null when none does. */
export async function currentLeader(db: Database, name: string): Promise<LeaderRow | null> {
  const [row] = await db.query<LeaderRow>('SELECT name, holder, address, since FROM cluster_leaders WHERE name = $1', [name]);
  return row ?? null;
}
