/**
 * Partial capture: charging part of an open hold while it stays open, for a hold that pays for
 * many pieces of work (a credit lease of the language-model gateway: one hold, many calls).
 *
 * Invariants (beside those of holds.ts):
 *  - one statement per batch, each hold guarded by `status = 'open' AND amount_micros >= sum`:
 *    a capture racing a release or a repair either happens before it (and the release gives
 *    back only what is left) or not at all; it can never charge more than the hold has left;
 *  - the captured money leaves the hold (`amount_micros` shrinks by it) and becomes `charge`
 *    rows, one per piece of work (its own reference), with one `release` row per hold giving
 *    the same sum back to the hold's side of the ledger: the balance does not move (the money
 *    was taken when the hold was placed), charge rows still sum to what was spent and
 *    hold/release rows still cancel out once the hold is closed by settleHold or releaseHold,
 *    which give back only what is left;
 *  - the limit scope (`billing_spend`) does not move either: held and charged both count;
 *  - capturing everything a hold has left closes it as `settled`;
 *  - `charged_micros` of an open hold is the sum captured so far.
 */
import type { Sql } from '../storage/database.ts';
import { BillingError } from './money.ts';

export interface Capture {
  holdId: string;
  /** What the piece of work cost, whole micro-dollars >= 0 (zero writes no charge row). */
  micros: number;
  /** The piece of work (a request id): the reference of its `charge` row. */
  reference: string;
}

export interface Captured {
  holdId: string;
  /** The sum taken from the hold by this batch. */
  capturedMicros: number;
  /** What the hold has left after it (0 when the capture closed it). */
  leftMicros: number;
}

const CAPTURE = `
WITH items AS (
  SELECT hold_id, micros, reference, ord FROM unnest($1::text[], $2::bigint[], $3::text[]) WITH ORDINALITY AS t(hold_id, micros, reference, ord)
), totals AS (
  SELECT hold_id, SUM(micros)::bigint AS s FROM items GROUP BY hold_id
), h AS (
  UPDATE billing_holds h SET
    amount_micros = CASE WHEN h.amount_micros = t.s THEN h.amount_micros ELSE h.amount_micros - t.s END,
    charged_micros = COALESCE(h.charged_micros, 0) + t.s,
    status = CASE WHEN h.amount_micros = t.s THEN 'settled' ELSE h.status END,
    closed_at = CASE WHEN h.amount_micros = t.s THEN now() ELSE h.closed_at END
    FROM totals t
   WHERE h.id = t.hold_id AND h.status = 'open' AND h.amount_micros >= t.s AND t.s > 0
  RETURNING h.id, h.account_id, h.service, h.reference, t.s AS captured, CASE WHEN h.status = 'settled' THEN 0 ELSE h.amount_micros END AS left_micros
), led AS (
  INSERT INTO billing_ledger (account_id, kind, amount_micros, service, reference, hold_id)
  SELECT account_id, 'release', captured, service, reference, id FROM h
  UNION ALL
  SELECT h.account_id, 'charge', -i.micros, h.service, i.reference, h.id
    FROM (SELECT * FROM items ORDER BY ord) i JOIN h ON h.id = i.hold_id WHERE i.micros > 0
)
SELECT id, captured, left_micros FROM h`;

/**
 * Charges each capture from its open hold, many holds in one statement. A hold that is not
 * open, or has less left than the sum of its captures, is left unchanged and missing from the
 * answer (its captures charged nothing): the caller decides what that means for its work.
 */
export async function captureFromHolds(db: Sql, captures: readonly Capture[]): Promise<Captured[]> {
  for (const c of captures) {
    if (!Number.isSafeInteger(c.micros) || c.micros < 0) {
      throw new BillingError('invalid_amount', `a charge must be a whole number of micro-dollars >= 0; got ${c.micros}`);
    }
  }
  if (captures.length === 0) return [];
  const rows = await db.query<{ id: string; captured: number | string; left_micros: number | string }>(CAPTURE, [
    captures.map((c) => c.holdId),
    captures.map((c) => c.micros),
    captures.map((c) => c.reference),
  ]);
  return rows.map((r) => ({ holdId: r.id, capturedMicros: Number(r.captured), leftMicros: Number(r.left_micros) }));
}

/** One capture; null when the hold is not open or has less than `micros` left (nothing changes). */
export async function captureFromHold(db: Sql, holdId: string, micros: number, reference: string): Promise<Captured | null> {
  const [row] = await captureFromHolds(db, [{ holdId, micros, reference }]);
  return row ?? null;
}
