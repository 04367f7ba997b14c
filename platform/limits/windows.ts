/**
 * Fixed-window limits counted across every process of a cluster (requests per second, minute
 * or day of a key, an account, an address), exact without a database round trip per request.
 *
 * The table `limit_windows` holds, per subject and window, how many units the processes have
 * taken. A process takes a *slice* of the window's budget in one statement and spends it from
 * memory; the statement never hands out more than the limit leaves, so N processes together
 * admit at most the limit in a window. Slices start at one unit and double while a process
 * spends them quickly (at most an eighth of the limit, and at most a quarter of what is left),
 * so near the limit every request asks the table itself.
 *
 * What a process keeps in memory: per subject and window, its slice (units granted, units
 * spent). It gives the unspent part back when the slice has been idle for `idleReturnMs`
 * (1 s), when another process is refused for that window (NOTIFY `lattice_limits`, on
 * PostgreSQL), and when it closes. A slice of a window that has ended is dropped. So a request
 * is refused only when the window's budget is spent, or is held unspent by a process that has
 * not answered the give-back call within `reclaimWaitMs` (50 ms): a process killed while
 * holding a slice keeps those units until the window ends (at most one slice, at most an
 * eighth of the limit). Once the table has refused a window, the process refuses it from
 * memory for `refusedMemoryMs` (500 ms), so a flood of refused requests costs one statement
 * per half second, not one each; units given back meanwhile are admitted after it.
 */
import type { Database } from '../storage/database.ts';
import { notify } from '../storage/channels.ts';

export const LIMIT_CHANGES_CHANNEL = 'lattice_limits';

export interface LimitWindow {
  /** The counter's name, for messages (`minute`, `day`). */
  name: string;
  /** Units allowed per window; null or Infinity: not limited, and not counted. */
  limit: number | null;
  /** The window's length in ms; windows are aligned to the Unix epoch, so minutes and days are UTC's. */
  ms: number;
}

export const SECOND = 1_000;
export const MINUTE = 60_000;
export const DAY = 86_400_000;

/** What was counted for an admitted request, to give it back when the request is undone. */
export interface Ticket {
  subject: string;
  counted: Array<{ ms: number; start: number; n: number }>;
}

export type Admission =
  | { ok: true; ticket: Ticket; /** Units left in the tightest window, as far as this process knows. */ remaining: number | null; /** When the tightest window ends (ms). */ resetAt: number | null }
  | { ok: false; window: LimitWindow; /** When the refusing window ends (ms). */ resetAt: number; retryAfterSeconds: number };

interface Slot {
  subject: string;
  ms: number;
  limit: number;
  start: number;
  granted: number;
  used: number;
  /** The table's `taken` after this process's last slice: the cluster's count as last seen. */
  clusterTaken: number;
  want: number;
  grantedAt: number;
  lastUse: number;
  pending: Promise<void> | null;
  timer: NodeJS.Timeout | null;
  /** After the table refused this window, refuse from memory until then (a flood of refused requests costs no statements). */
  refusedUntil: number;
}

export interface WindowLimiterOptions {
  idleReturnMs?: number;
  reclaimWaitMs?: number;
  refusedMemoryMs?: number;
}

export class WindowLimiter {
  private readonly slots = new Map<string, Slot>();
  private readonly idleReturnMs: number;
  private readonly reclaimWaitMs: number;
  private readonly refusedMemoryMs: number;
  private listening: Promise<void> | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private closed = false;

  constructor(
    private readonly db: Database,
    options: WindowLimiterOptions = {},
  ) {
    this.idleReturnMs = options.idleReturnMs ?? 1_000;
    this.reclaimWaitMs = options.reclaimWaitMs ?? 50;
    this.refusedMemoryMs = options.refusedMemoryMs ?? 500;
  }

  /**
   * Counts `n` units against every window of `subject`, all or none. Resolves at once (from
   * this process's slice) in the common case; asks the table when the slice is spent.
   */
  async take(subject: string, windows: readonly LimitWindow[], now: Date = new Date(), n = 1): Promise<Admission> {
    const t = now.getTime();
    const ticket: Ticket = { subject, counted: [] };
    let remaining: number | null = null;
    let resetAt: number | null = null;
    for (const w of windows) {
      if (w.limit === null || !Number.isFinite(w.limit)) continue;
      const start = Math.floor(t / w.ms) * w.ms;
      if (w.limit < n) {
        this.refund(ticket);
        return { ok: false, window: w, resetAt: start + w.ms, retryAfterSeconds: Math.max(1, Math.ceil((start + w.ms - t) / 1000)) };
      }
      const slot = this.slotFor(subject, w, start);
      const available = slot.granted - slot.used >= n;
      const ok = available && !slot.pending ? this.spend(slot, n) : !available && slot.refusedUntil > Date.now() ? false : await this.takeSlow(slot, w, start, n);
      if (!ok) {
        this.refund(ticket);
        const end = start + w.ms;
        return { ok: false, window: w, resetAt: end, retryAfterSeconds: Math.max(1, Math.ceil((end - t) / 1000)) };
      }
      ticket.counted.push({ ms: w.ms, start, n });
      const left = Math.max(0, w.limit - slot.clusterTaken + (slot.granted - slot.used));
      if (remaining === null || left < remaining) {
        remaining = left;
        resetAt = start + w.ms;
      }
    }
    return { ok: true, ticket, remaining, resetAt };
  }

  /** Gives back what an admitted request counted (it was undone). Units of an ended window stay spent. */
  refund(ticket: Ticket): void {
    for (const c of ticket.counted) {
      const slot = this.slots.get(slotKey(ticket.subject, c.ms));
      if (slot && slot.start === c.start) {
        slot.used = Math.max(0, slot.used - c.n);
        slot.refusedUntil = 0;
        this.armReturn(slot);
      } else if (c.start + c.ms > Date.now()) {
        void this.giveBackUnits(ticket.subject, c.ms, c.start, c.n).catch(() => {});
      }
    }
    ticket.counted = [];
  }

  /** Gives every unspent unit back to the table and stops. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const returns: Promise<void>[] = [];
    for (const slot of this.slots.values()) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = null;
      if (slot.pending) returns.push(slot.pending.then(() => this.returnUnused(slot)));
      else returns.push(this.returnUnused(slot));
    }
    await Promise.allSettled(returns);
    // A slice starts its listener without waiting for it (armReturn): one still connecting stops
    // itself once it is up (listen), or its connection would stay checked out and the pool never
    // end. Waited for here, so that a closed limiter holds no connection.
    await this.listening?.catch(() => {});
    await this.unlisten?.().catch(() => {});
  }

  private slotFor(subject: string, w: LimitWindow, start: number): Slot {
    const key = slotKey(subject, w.ms);
    let slot = this.slots.get(key);
    if (!slot) {
      if (this.slots.size >= 100_000) this.dropEnded(Date.now());
      slot = { subject, ms: w.ms, limit: w.limit!, start, granted: 0, used: 0, clusterTaken: 0, want: 1, grantedAt: 0, lastUse: 0, pending: null, timer: null, refusedUntil: 0 };
      this.slots.set(key, slot);
    } else if (slot.start !== start && !slot.pending) {
      // A new window: the old slice's units belong to a window that is over.
      if (slot.timer) clearTimeout(slot.timer);
      Object.assign(slot, { start, granted: 0, used: 0, clusterTaken: 0, want: 1, timer: null, refusedUntil: 0 });
    }
    slot.limit = w.limit!;
    return slot;
  }

  private spend(slot: Slot, n: number): boolean {
    slot.used += n;
    slot.lastUse = Date.now();
    return true;
  }

  private async takeSlow(slot: Slot, w: LimitWindow, start: number, n: number): Promise<boolean> {
    let reclaimed = false;
    for (;;) {
      if (slot.pending) {
        await slot.pending;
        continue;
      }
      if (slot.start !== start) this.slotFor(slot.subject, w, start);
      if (slot.granted - slot.used >= n) return this.spend(slot, n);
      let got = 0;
      slot.pending = this.askSlice(slot, n - (slot.granted - slot.used)).then(
        (g) => {
          got = g;
        },
        () => {
          got = -1;
        },
      );
      await slot.pending;
      slot.pending = null;
      if (got < 0) throw new Error('limit counter unavailable');
      if (got > 0) continue;
      // Refused: another process may hold unspent units of this window. Ask them back once.
      if (reclaimed || this.db.kind !== 'postgres') {
        slot.refusedUntil = Date.now() + this.refusedMemoryMs;
        return false;
      }
      reclaimed = true;
      await this.reclaim(slot);
    }
  }

  /** Takes a slice of at least `need` units (or what is left) from the table; returns the units granted. */
  private async askSlice(slot: Slot, need: number): Promise<number> {
    const now = Date.now();
    // Double the slice while this process spends them within a second; halve it otherwise.
    slot.want = slot.grantedAt && now - slot.grantedAt < 1_000 ? slot.want * 2 : Math.max(1, Math.ceil(slot.want / 2));
    slot.want = Math.min(slot.want, Math.max(1, Math.ceil(slot.limit / 8)));
    const want = Math.max(need, slot.want);
    const [row] = await this.db.query<{ taken: number | string; granted: number | string }>(
      `INSERT INTO limit_windows AS w (subject, window_ms, window_start, taken, granted)
       VALUES ($1, $2, $3, LEAST($5::bigint, GREATEST(1, $4::bigint / 4)), LEAST($5::bigint, GREATEST(1, $4::bigint / 4)))
       ON CONFLICT (subject, window_ms, window_start) DO UPDATE
         SET taken = w.taken + LEAST($5::bigint, GREATEST(1, ($4::bigint - w.taken) / 4)),
             granted = LEAST($5::bigint, GREATEST(1, ($4::bigint - w.taken) / 4))
         WHERE w.taken < $4::bigint
       RETURNING taken, granted`,
      [slot.subject, slot.ms, slot.start, slot.limit, want],
    );
    if (!row) return 0;
    const granted = Number(row.granted);
    slot.granted += granted;
    slot.clusterTaken = Number(row.taken);
    slot.grantedAt = now;
    this.armReturn(slot);
    return granted;
  }

  /** Asks every other process to give back its unspent units of `slot`'s window, and waits a moment for them. */
  private async reclaim(slot: Slot): Promise<void> {
    await this.listen();
    await notify(this.db, LIMIT_CHANGES_CHANNEL, JSON.stringify([slot.subject, slot.ms, slot.start]));
    await new Promise((r) => setTimeout(r, this.reclaimWaitMs));
  }

  private listen(): Promise<void> {
    // A request still in flight when the limiter closes starts no listener that would outlive it.
    if (this.closed && !this.listening) return Promise.resolve();
    this.listening ??= this.db
      .listen(LIMIT_CHANGES_CHANNEL, (payload) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(payload);
        } catch {
          return;
        }
        if (!Array.isArray(parsed)) return;
        const [subject, ms, start] = parsed as [string, number, number];
        const slot = this.slots.get(slotKey(subject, ms));
        if (slot && slot.start === start && !slot.pending) void this.returnUnused(slot).catch(() => {});
      })
      .then(async (stop) => {
        this.unlisten = stop;
        // Closed while it was connecting: stopped here too, whoever waits for it.
        if (this.closed) await stop();
      });
    return this.listening;
  }

  /** Once the slice has been idle for `idleReturnMs`, its unspent units go back to the table. */
  private armReturn(slot: Slot): void {
    if (slot.timer || this.closed || slot.granted - slot.used <= 0) return;
    const fire = () => {
      slot.timer = null;
      if (slot.granted - slot.used <= 0) return;
      const idle = Date.now() - slot.lastUse;
      if (idle < this.idleReturnMs && slot.lastUse) {
        slot.timer = setTimeout(fire, this.idleReturnMs - idle);
        slot.timer.unref();
        return;
      }
      void this.returnUnused(slot).catch(() => {});
    };
    slot.timer = setTimeout(fire, this.idleReturnMs);
    slot.timer.unref();
    // A listener is needed to answer other processes' give-back calls while this process holds units.
    if (this.db.kind === 'postgres') void this.listen().catch(() => {});
  }

  private async returnUnused(slot: Slot): Promise<void> {
    const unused = slot.granted - slot.used;
    if (unused <= 0 || slot.start + slot.ms <= Date.now()) return;
    slot.granted = slot.used;
    slot.clusterTaken -= unused;
    await this.giveBackUnits(slot.subject, slot.ms, slot.start, unused);
  }

  private async giveBackUnits(subject: string, ms: number, start: number, n: number): Promise<void> {
    await this.db.query(
      'UPDATE limit_windows SET taken = GREATEST(taken - $4::bigint, 0) WHERE subject = $1 AND window_ms = $2 AND window_start = $3',
      [subject, ms, start, n],
    );
  }

  private dropEnded(now: number): void {
    for (const [key, slot] of this.slots) {
      if (slot.start + slot.ms <= now && !slot.pending) {
        if (slot.timer) clearTimeout(slot.timer);
        this.slots.delete(key);
      }
    }
  }
}

function slotKey(subject: string, ms: number): string {
  return `${ms}\u0000${subject}`;
}

/** Deletes the rows of windows that ended more than an hour ago (run by one process of the cluster). */
export async function pruneLimitWindows(db: Database, now: Date = new Date()): Promise<number> {
  const rows = await db.query<{ n: number }>(
    'WITH d AS (DELETE FROM limit_windows WHERE window_start + window_ms < $1 RETURNING 1) SELECT count(*)::int AS n FROM d',
    [now.getTime() - 3_600_000],
  );
  return Number(rows[0]?.n ?? 0);
}

const byDatabase = new WeakMap<Database, WindowLimiter>();

/** The process's one limiter of a database (one set of slices per store). */
export function limiterFor(db: Database): WindowLimiter {
  let limiter = byDatabase.get(db);
  if (!limiter) {
    limiter = new WindowLimiter(db);
    byDatabase.set(db, limiter);
  }
  return limiter;
}

/** Gives back the unspent slices of a database's limiter (the process is stopping). */
export async function closeLimiter(db: Database): Promise<void> {
  await byDatabase.get(db)?.close();
  byDatabase.delete(db);
}
