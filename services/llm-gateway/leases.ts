/**
 * Credit leases: the money of many calls held on the ledger at once, so that a call touches the
 * database neither before nor after it runs.
 *
 * Per (account, key) this process keeps one active lease: ONE hold on the ledger (placeHold,
 * counted against the key's spend-limit scope when it has one, like a call's hold), sized for many calls (32
 * worst cases of the call that asked for it, at least $0.01). A call reserves its worst case
 * from the lease in memory, synchronously, and on finishing turns the reservation into its
 * actual cost (capped at the worst case). A flusher (every 50 ms, and when a lease or the
 * process closes) writes what finished calls cost in one transaction: one statement captures
 * the charges of every lease (platform/billing captureFromHolds: one `charge` row per call,
 * with its request id), one statement adds the usage rows per key, model and day. Leases idle
 * for 2 s, older than a minute, whose key's spendLimit changed, or of a closing process are
 * given back (releaseHold returns what they have left).
 *
 * Why the guarantees hold:
 *  - the ledger never gives a lease more than the balance and the key's spendLimit allow (the
 *    hold is one guarded statement, across processes); calls of this process only spend from
 *    what their lease holds (reservation check and take are one synchronous step), so
 *    neither the balance nor a spendLimit can be overrun, by any number of processes;
 *  - when the ledger refuses a lease, the call asks for exactly its worst case on a hold of
 *    its own (the old per-call path, settled when the call ends); a refusal of that is the
 *    402. So a nearly empty balance admits exactly the calls it can pay for;
 *  - the capture and the usage rows are written in one transaction, so the usage the console
 *    (and a spendLimit's recount) reads always matches the charges on the ledger.
 *
 * On PostgreSQL a finished call's charge is on the ledger before its answer is sent: `finish`
 * waits for the capture that includes it (on the embedded store, one process, the flusher
 * writes it within 50 ms). Captures are group commits: calls that finish while one capture
 * runs all go into the next, so the database sees one transaction per round trip, not one
 * per call, and an answered call costs at most two capture round trips of latency.
 *
 * What a crash costs: on PostgreSQL nothing answered goes uncharged. A process killed (-9)
 * loses only the charges of calls it had not answered yet (their clients got no answer); on
 * the embedded store, at most the last 50 ms of answered calls. The repair at the
 * next start (or the hold's expiry) gives back what its leases had left. A lease is never
 * charged for a call twice and never charged more than it held.
 */
import { randomUUID } from 'node:crypto';
import { BillingError, availableMicros, captureFromHolds, placeHold, releaseHold, settleHold, type Hold } from '../../platform/billing/index.ts';
import type { Database, Sql } from '../../platform/storage/database.ts';
import { recordUsage, recordUsageBatch, type UsageRecord } from './usage.ts';

export interface LeaseOptions {
  /** How often finished calls are written to the ledger (default 50 ms). */
  flushMs?: number;
  /** A lease nobody used for this long is given back (default 2 s). */
  idleMs?: number;
  /** A lease is replaced by a fresh one after this long (default 60 s): its hold never nears its expiry. */
  maxAgeMs?: number;
  /** Smallest lease, micro-dollars (default 10,000: $0.01). */
  floorMicros?: number;
  /** A lease covers this many worst cases of the call that asked for it (default 32). */
  callsPerLease?: number;
}

interface PendingCall {
  micros: number;
  reference: string;
  usage: UsageRecord;
}

interface Lease {
  hold: Hold;
  accountId: string;
  keyId: string;
  /** The key's spendLimit when the lease was placed: another limit retires the lease. */
  spendLimit: number | null;
  /** What the hold has left on the ledger after the last flush. */
  left: number;
  /** Worst cases of the calls running on it. */
  reserved: number;
  running: number;
  /** Costs of finished calls not yet captured. */
  pendingMicros: number;
  pending: PendingCall[];
  retiring: boolean;
  /** Its hold was closed under it (repair of an expired hold): nothing more can be captured. */
  dead: boolean;
  createdAt: number;
  lastUsed: number;
}

interface KeyEntry {
  active: Lease | null;
  acquiring: Promise<void> | null;
  /** When the ledger last refused a lease: until REFUSED_MS later calls ask for their own worst case at once. */
  refusedAt: number;
}

/** A call's money: a reservation on a lease, or (when the ledger refused a lease) a hold of its own. */
export type Reservation = { lease: Lease; micros: number; done: boolean } | { hold: Hold; micros: number; done: boolean };

const REFUSED_MS = 1_000;
const BALANCE_CACHE_MS = 1_000;

/**
 * Placing a hold with a limit scope locks the scope's row, then the balance's; closing one
 * locks the balance, then the scope (platform/billing). `closing` takes the scope's lock first,
 * in the same transaction, so that this process always locks in one order. A deadlock or
 * serialization failure left (another process's repair) aborts the statement whole: trying
 * again is safe.
 */
function closing<T>(db: Database, hold: Hold, close: (tx: Sql) => Promise<T>): Promise<T> {
  if (!hold.limitScope) return close(db);
  const scope = hold.limitScope;
  return db.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM billing_spend WHERE scope = $1 FOR UPDATE', [scope]);
    return close(tx);
  });
}

async function retried<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= 10 || (code !== '40P01' && code !== '40001')) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
    }
  }
}

const free = (l: Lease): number => l.left - l.reserved - l.pendingMicros;

export class CreditLeases {
  private readonly entries = new Map<string, KeyEntry>();
  private readonly leases = new Set<Lease>();
  /** Accounts whose balance was last read positive, and when. */
  private readonly positive = new Map<string, number>();
  private chain: Promise<void> = Promise.resolve();
  /** The capture queued behind the running one, which calls finishing now join (group commit). */
  private nextCapture: Promise<void> | null = null;
  private busy = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly o: Required<LeaseOptions>;

  constructor(
    private readonly db: Database,
    private readonly now: () => Date,
    private readonly call: { service: string; owner: string; maxCallMs: number; scope: (keyId: string) => string },
    options: LeaseOptions = {},
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.o = { flushMs: 50, idleMs: 2_000, maxAgeMs: 60_000, floorMicros: 10_000, callsPerLease: 32, ...options };
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.busy || this.leases.size === 0) return;
      void this.flush().catch(this.onError);
    }, this.o.flushMs);
    this.timer.unref();
  }

  private entry(accountId: string, keyId: string): KeyEntry {
    const id = `${accountId}\u0000${keyId}`;
    let e = this.entries.get(id);
    if (!e) {
      if (this.entries.size >= 100_000) for (const [k, v] of this.entries) if (!v.active && !v.acquiring) this.entries.delete(k);
      e = { active: null, acquiring: null, refusedAt: -Infinity };
      this.entries.set(id, e);
    }
    return e;
  }

  /** Whether the workspace has credit (spec rule 1): its lease here, else a recent positive read, else the ledger. */
  async hasCredit(accountId: string, keyId: string): Promise<boolean> {
    const a = this.entries.get(`${accountId}\u0000${keyId}`)?.active;
    if (a && free(a) > 0) return true;
    const seen = this.positive.get(accountId);
    if (seen !== undefined && performance.now() - seen < BALANCE_CACHE_MS) return true;
    if ((await availableMicros(this.db, accountId)) > 0) {
      if (this.positive.size >= 100_000) this.positive.clear();
      this.positive.set(accountId, performance.now());
      return true;
    }
    // The ledger's balance may be all in this process's leases of the account's other keys.
    for (const l of this.leases) if (l.accountId === accountId && !l.retiring && free(l) > 0) return true;
    return false;
  }

  /**
   * Reserves a call's worst case: from the key's lease in memory when it has room, else from a
   * new lease, else on a hold of the call's own. Throws BillingError `insufficient_credits` or
   * `limit_reached` when the ledger cannot hold even the call's worst case.
   */
  async reserve(accountId: string, keyId: string, spendLimit: number | null, micros: number, reference: string): Promise<Reservation> {
    const e = this.entry(accountId, keyId);
    for (let attempt = 0; attempt < 2; attempt++) {
      const a = e.active;
      if (a && a.spendLimit !== spendLimit) this.retire(a);
      else if (a && free(a) >= micros) return this.take(a, micros);
      if (performance.now() - e.refusedAt < REFUSED_MS) break;
      e.acquiring ??= this.acquire(e, accountId, keyId, spendLimit, micros).finally(() => {
        e.acquiring = null;
      });
      await e.acquiring;
    }
    const a = e.active;
    if (a && a.spendLimit === spendLimit && free(a) >= micros) return this.take(a, micros);
    return this.own(accountId, keyId, spendLimit, micros, reference);
  }

  private take(l: Lease, micros: number): Reservation {
    l.reserved += micros;
    l.running++;
    l.lastUsed = performance.now();
    return { lease: l, micros, done: false };
  }

  private async acquire(e: KeyEntry, accountId: string, keyId: string, spendLimit: number | null, micros: number): Promise<void> {
    const size = Math.max(this.o.callsPerLease * micros, this.o.floorMicros);
    try {
      const hold = await retried(() => placeHold(this.db, {
        accountId,
        service: this.call.service,
        reference: `lease-${randomUUID()}`,
        micros: size,
        owner: this.call.owner,
        expiresAt: new Date(this.now().getTime() + this.o.maxAgeMs + this.call.maxCallMs + 60_000),
        limit: spendLimit === null ? null : { scope: this.call.scope(keyId), maxMicros: spendLimit },
      }));
      const now = performance.now();
      const lease: Lease = { hold, accountId, keyId, spendLimit, left: size, reserved: 0, running: 0, pendingMicros: 0, pending: [], retiring: false, dead: false, createdAt: now, lastUsed: now };
      if (e.active) this.retire(e.active);
      e.active = lease;
      this.leases.add(lease);
    } catch (err) {
      if (!(err instanceof BillingError)) throw err;
      e.refusedAt = performance.now();
    }
  }

  /** The call's own hold of exactly its worst case; on refusal, this process's idle leases of the account go back first, once. */
  private async own(accountId: string, keyId: string, spendLimit: number | null, micros: number, reference: string): Promise<Reservation> {
    const place = async (): Promise<Reservation> => ({
      hold: await retried(() => placeHold(this.db, {
        accountId,
        service: this.call.service,
        reference,
        micros,
        owner: this.call.owner,
        expiresAt: new Date(this.now().getTime() + this.call.maxCallMs + 60_000),
        limit: spendLimit === null ? null : { scope: this.call.scope(keyId), maxMicros: spendLimit },
      })),
      micros,
      done: false,
    });
    try {
      return await place();
    } catch (err) {
      if (!(err instanceof BillingError) || !(await this.returnIdle(accountId))) throw err;
      return place();
    }
  }

  /** Turns a reservation into the call's cost (capped at its worst case) and its usage. */
  async finish(r: Reservation, costMicros: number, reference: string, usage: Omit<UsageRecord, 'costMicros'>): Promise<void> {
    if (r.done) return;
    r.done = true;
    if ('hold' in r) {
      const closed = await retried(() => closing(this.db, r.hold, (tx) => settleHold(tx, r.hold.id, costMicros)));
      await retried(() => recordUsage(this.db, { ...usage, costMicros: closed?.chargedMicros ?? 0 }));
      return;
    }
    const l = r.lease;
    const charged = Math.min(Math.max(0, Math.ceil(costMicros)), r.micros);
    l.reserved -= r.micros;
    l.running--;
    l.pendingMicros += charged;
    l.pending.push({ micros: charged, reference, usage: { ...usage, costMicros: charged } });
    l.lastUsed = performance.now();
    // On PostgreSQL (where several processes may serve, and one may be killed) the answer waits
    // for its charge. The embedded store has one process, and a capture on its one session
    // costs the answer about ten times its own latency: there the flusher writes it within
    // `flushMs`. A failed capture puts the calls back for the next one (the timer retries);
    // the answer is not failed for it: the model's work is done.
    if (this.db.kind === 'postgres') await this.captured().catch(this.onError);
  }

  /** Resolves once a capture that started after this call has run: the queued one, or a new one. */
  private captured(): Promise<void> {
    if (this.nextCapture) return this.nextCapture;
    const run = this.chain.then(() => {
      this.nextCapture = null;
      return this.flushOnce();
    });
    this.nextCapture = run;
    this.chain = run.catch(() => {});
    return run;
  }

  /** The call ran nothing: its reservation goes back whole. */
  async cancel(r: Reservation): Promise<void> {
    if (r.done) return;
    r.done = true;
    if ('hold' in r) {
      await retried(() => closing(this.db, r.hold, (tx) => releaseHold(tx, r.hold.id)));
      return;
    }
    r.lease.reserved -= r.micros;
    r.lease.running--;
    r.lease.lastUsed = performance.now();
  }

  private retire(l: Lease): void {
    l.retiring = true;
    const e = this.entries.get(`${l.accountId}\u0000${l.keyId}`);
    if (e?.active === l) e.active = null;
  }

  /** Writes finished calls and gives back leases that are done, after any flush already running. */
  flush(): Promise<void> {
    const run = this.chain.then(() => this.flushOnce());
    this.chain = run.catch(() => {});
    return run;
  }

  /** Gives back the leases of a key (its limits changed): what they charged is written first. */
  async retireKey(keyId: string): Promise<void> {
    for (const l of this.leases) if (l.keyId === keyId) this.retire(l);
    await this.flush();
  }

  /**
   * Writes what the account's calls cost and gives back its leases no call is running on (a
   * refused call, the console's balance); true when there was one.
   */
  async returnIdle(accountId: string): Promise<boolean> {
    let returned = false;
    for (const l of this.leases) {
      if (l.accountId === accountId && l.running === 0 && !l.retiring) {
        this.retire(l);
        returned = true;
      }
    }
    await this.flush();
    return returned;
  }

  /** Writes everything and gives back every lease no call is running on. */
  async drain(): Promise<void> {
    for (const l of this.leases) this.retire(l);
    await this.flush();
  }

  /** At shutdown: no new leases, running calls get up to `waitMs` to finish, then everything is written and given back. */
  async close(waitMs = 2_000): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const end = performance.now() + waitMs;
    for (;;) {
      // A database that cannot be written now is told, and tried again until `waitMs` is over.
      await this.drain().catch(this.onError);
      // A call that ended during the drain left a charge: drain again; stop when none is left.
      if (this.leases.size === 0 || performance.now() >= end) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Open leases of this process (for tests and the console's explanations). */
  openLeases(): { holdId: string; accountId: string; keyId: string; left: number; reserved: number; pending: number }[] {
    return [...this.leases].map((l) => ({ holdId: l.hold.id, accountId: l.accountId, keyId: l.keyId, left: l.left, reserved: l.reserved, pending: l.pendingMicros }));
  }

  private async flushOnce(): Promise<void> {
    this.busy = true;
    try {
      await this.capture();
      await this.giveBack();
    } finally {
      this.busy = false;
    }
  }

  private async capture(): Promise<void> {
    const batch: { lease: Lease; items: PendingCall[]; total: number }[] = [];
    for (const l of this.leases) {
      if (l.pending.length === 0) continue;
      batch.push({ lease: l, items: l.pending, total: l.pending.reduce((s, i) => s + i.micros, 0) });
      l.pending = [];
    }
    if (batch.length === 0) return;
    let captured: Map<string, number>;
    try {
      // What this guards against is a gateway process dying, not the database server: the
      // commit is visible to every process at once and reaches the disk within PostgreSQL's
      // WAL writer delay (200 ms), so the answer need not wait for a flush to disk.
      captured = await this.db.transaction(async (tx) => {
        const done = await captureFromHolds(
          tx,
          batch.flatMap((b) => b.items.filter((i) => i.micros > 0).map((i) => ({ holdId: b.lease.hold.id, micros: i.micros, reference: i.reference }))),
        );
        const left = new Map(done.map((c) => [c.holdId, c.leftMicros]));
        // Usage only of calls whose charge is on the ledger: the two always agree.
        await recordUsageBatch(tx, batch.filter((b) => b.total === 0 || left.has(b.lease.hold.id)).flatMap((b) => b.items.map((i) => i.usage)));
        return left;
      }, { asynchronousCommit: true });
    } catch (err) {
      for (const b of batch) b.lease.pending = b.items.concat(b.lease.pending);
      throw err;
    }
    for (const b of batch) {
      const l = b.lease;
      l.pendingMicros -= b.total;
      if (b.total === 0) continue;
      const left = captured.get(l.hold.id);
      if (left === undefined) {
        // The hold was closed under the lease (repaired as expired): these calls cannot be charged.
        l.dead = true;
        l.left = 0;
        this.retire(l);
        this.onError(new Error(`llm-gateway: lease ${l.hold.id} was closed before ${b.items.length} calls (${b.total} micro-dollars) were charged`));
      } else {
        l.left = left;
        if (left === 0) {
          l.dead = true;
          this.retire(l);
        }
      }
    }
  }

  private async giveBack(): Promise<void> {
    const now = performance.now();
    for (const l of [...this.leases]) {
      if (!l.retiring && ((l.running === 0 && now - l.lastUsed >= this.o.idleMs) || now - l.createdAt >= this.o.maxAgeMs)) this.retire(l);
      if (!l.retiring || l.running > 0 || l.pending.length > 0) continue;
      this.leases.delete(l);
      if (l.dead) continue;
      try {
        await retried(() => closing(this.db, l.hold, (tx) => releaseHold(tx, l.hold.id)));
      } catch (err) {
        this.leases.add(l);
        throw err;
      }
    }
  }
}
