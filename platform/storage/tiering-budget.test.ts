import assert from 'node:assert/strict';
import { test } from 'node:test';
import { givenTieringBudget } from './database.ts';

test("an operator's --wasm-tiering-budget is found on the command line, in either spelling; without one the store sets its own", () => {
  assert.equal(givenTieringBudget([]), null);
  assert.equal(givenTieringBudget(['--import', 'tsx', '--max-old-space-size=4096']), null);
  assert.equal(givenTieringBudget(['--wasm-tiering-budget=123']), 123);
  assert.equal(givenTieringBudget(['--enable-source-maps', '--wasm_tiering_budget=7']), 7);
  // Another flag that only starts the same way is not the budget.
  assert.equal(givenTieringBudget(['--wasm-tiering-budget-extra=5']), null);
});
