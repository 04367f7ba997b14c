/**
 * The credits ledger: one prepaid balance per account in micro-dollars, kept as ledger rows
 * (top-up, hold, charge, release), with holds that can never take a balance below zero.
 * See README.md for the rules and an example.
 */
export { billingMigrations } from './migrations.ts';
export { BillingError, MAX_TOPUP_USD, MICROS_PER_USD, microsToUsd, parseTopUpUsd, usdToMicros } from './money.ts';
export { availableMicros, getBalance, ledgerEntries, ledgerSum, topUp, type Balance, type LedgerEntry, type LedgerKind } from './ledger.ts';
export {
  extendHold,
  getHold,
  placeHold,
  releaseHold,
  repairHolds,
  settleHold,
  spentInScope,
  type Closed,
  type Hold,
  type HoldRequest,
  type Resolution,
} from './holds.ts';
export { captureFromHold, captureFromHolds, type Capture, type Captured } from './capture.ts';
