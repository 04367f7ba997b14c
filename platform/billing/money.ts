/** Amounts of the ledger: integer micro-dollars (1e-6 USD), so that sums are exact. */

export const MICROS_PER_USD = 1_000_000;
/** The largest single top-up accepted: anything above is a typing mistake, not a payment. */
export const MAX_TOPUP_USD = 1_000_000;

export class BillingError extends Error {
  constructor(
    /** `invalid_amount`, `insufficient_credits`, `limit_reached`, `hold_not_found`. */
    readonly code: 'invalid_amount' | 'insufficient_credits' | 'limit_reached' | 'hold_not_found',
    message: string,
  ) {
    super(message);
    this.name = 'BillingError';
  }
}

export function usdToMicros(usd: number): number {
  return Math.round(usd * MICROS_PER_USD);
}

export function microsToUsd(micros: number | string | bigint): number {
  return Number(micros) / MICROS_PER_USD;
}

/**
 * A top-up amount typed by a person (`"12.50"`), checked: a plain decimal number above zero,
 * at most six decimals (one micro-dollar) and at most MAX_TOPUP_USD.
 */
export function parseTopUpUsd(text: string): number {
  const trimmed = String(text).trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(trimmed)) {
    throw new BillingError('invalid_amount', `the amount must be a number of US dollars, like 25 or 12.50; got '${text}'`);
  }
  const usd = Number(trimmed);
  if (!(usd > 0)) throw new BillingError('invalid_amount', `the amount must be above zero (a top-up cannot take credit away); got '${text}'`);
  if (usd > MAX_TOPUP_USD) throw new BillingError('invalid_amount', `the amount must be at most ${MAX_TOPUP_USD} US dollars per top-up; got '${text}'`);
  const micros = usdToMicros(usd);
  if (micros < 1 || Math.abs(micros / MICROS_PER_USD - usd) > 1e-9) {
    throw new BillingError('invalid_amount', `the amount must be a whole number of micro-dollars (at most 6 decimals); got '${text}'`);
  }
  return usd;
}
